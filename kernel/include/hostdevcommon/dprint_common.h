// Metalium's host/device DPRINT definitions (its print buffer's wire
// format). tessel's DPRINT has no wire format, so kernels that include this
// header get nothing from it but need it to exist.
#pragma once

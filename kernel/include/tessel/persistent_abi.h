// The persistent-dispatch ABI shared by the card's dispatcher, the host and a
// program's persistent kernels (tessel/persistent.h): handler numbers,
// command flags, event kinds, rejection reasons and error codes.
//
// The host reads these values from this header (tessel.dispatch.abi), so a
// host and a kernel built from the same header agree by construction.
//
// This header is C and free of the standard library.
#ifndef TESSEL_PERSISTENT_ABI_H
#define TESSEL_PERSISTENT_ABI_H

// Handlers: 0 is NOP, 1..239 the program's, 240..251 reserved (rejected), and
// the runtime's own commands above them (sent by the host API, never by a
// program's submit).
#define KM_HANDLER_NOP 0u
#define KM_HANDLER_FIRST 1u
#define KM_HANDLER_LAST 239u
#define KM_HANDLER_RESERVED_FIRST 240u
#define KM_HANDLER_RESERVED_LAST 251u
#define KM_HANDLER_CANCEL 252u
#define KM_HANDLER_RUN 253u
#define KM_HANDLER_PING 254u
#define KM_HANDLER_EXIT 255u

// Command flags. Bit 0 is reserved: a command that sets it is rejected.
#define KM_FLAG_RESERVED 0x1u
#define KM_FLAG_EXCLUSIVE 0x2u
#define KM_FLAG_RESULT 0x4u
#define KM_FLAG_QUEUE 0x8u

#define KM_ARGS_MAX 10u
#define KM_CORES_MAX 128u
#define KM_DEPTH_MAX 16u
#define KM_HOST_DEPTH_MAX 64u
#define KM_EVENT_DEPTH_MAX 128u
#define KM_JOB_QUEUE 64u

// Event kinds (the low 8 bits of an event's first word).
#define KM_EVENT_DONE 1u
#define KM_EVENT_TIMEOUT 2u
#define KM_EVENT_PONG 3u
#define KM_EVENT_REJECTED 4u

// An event's auxiliary word: the low 8 bits are the first core of the group
// (done), the slot (timeout) or the reason (rejected); the next 16 bits are
// the low bits of the command's sequence number.
#define KM_AUX_VALUE_BITS 8u
#define KM_AUX_SEQUENCE_SHIFT 8u
#define KM_AUX_SEQUENCE_BITS 16u

// Why the kernel rejected a command (CommandRejected.reason).
#define KMD_REJECT_HANDLER 1u
#define KMD_REJECT_FLAGS 2u
#define KMD_REJECT_GROUP 3u
#define KMD_REJECT_EXITED 4u
#define KMD_REJECT_QUEUE 9u

// The dispatcher's state and error in its result block.
#define KM_STATE_IDLE 0u
#define KM_STATE_STARTING 1u
#define KM_STATE_READY 2u
#define KM_STATE_RUNNING 3u
#define KM_STATE_EXITING 4u
#define KM_STATE_DONE 5u

#define KM_ERROR_NONE 0u
#define KM_ERROR_DEADLINE 1u
#define KM_ERROR_IDLE 2u
#define KM_ERROR_KERNEL_IDLE 3u
#define KM_ERROR_KERNEL 4u
#define KM_ERROR_STOPPED 5u
#define KM_ERROR_WAIT 6u

// The runtime's circular buffers: the command's token for compute and for the
// writer, and the trace.
#define KM_CB_TOKEN_COMPUTE 29u
#define KM_CB_TOKEN_WRITER 30u
#define KM_CB_TRACE 31u

// Bytes of L1 per traced sequence number, and the card's timer.
#define KM_TRACE_ENTRY_BYTES 16u
#define KM_TIMER_MHZ 50u

#endif

"""The cycle estimate of a device's last run (include/tessel/timing.hpp,
docs/timing.md): Device.open(timing=True) (or TESSEL_TIMING=1) makes every
RISC's clock count estimated cycles; Device.last_run_timing() returns the
latest run's TimingReport. These are a cost model's estimates, not
measurements."""

from dataclasses import dataclass

from .core import CoreCoord

__all__ = ["RiscTiming", "TimingReport"]


@dataclass(frozen=True)
class RiscTiming:
    """One RISC of one core in a run: busy + wait cycles is its total."""

    core: CoreCoord  # logical
    risc: str  # "BRISC", "NCRISC", "COMPUTE"
    busy_cycles: int
    wait_cycles: int

    @property
    def total_cycles(self) -> int:
        return self.busy_cycles + self.wait_cycles


@dataclass(frozen=True)
class TimingReport:
    """The estimate of one program run (estimated, not measured)."""

    clock_mhz: float
    kernel_cycles: int  # first start to last end of the run's RISCs
    dispatch_cycles: int  # the launch's estimated dispatch overhead
    device_cycles: int  # kernel + dispatch
    runs: int  # runs timed on the device so far; 0: none yet
    riscs: tuple  # of RiscTiming, by core (row-major), then RISC
    stopped: bool = False  # the run stopped (deadlock, error, fault, interrupt): its estimate up to the stop

    @property
    def device_us(self) -> float:
        return self.device_cycles / self.clock_mhz if self.clock_mhz else 0.0

    @classmethod
    def _from_native(cls, raw) -> "TimingReport":
        clock, kernel, dispatch, device, runs, riscs, stopped = raw
        return cls(clock, kernel, dispatch, device, runs,
                   tuple(RiscTiming(CoreCoord(x, y), risc, busy, wait) for x, y, risc, busy, wait in riscs), stopped)

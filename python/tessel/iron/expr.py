"""Runtime scalars of a sequence body: affine in the sequence's registers
(DispatchTime values and range_ counters), so one recorded stream serves
every call."""


class Scalar:
    def __init__(self, constant=0, terms=None):
        self.constant = int(constant)
        self.terms = dict(terms or {})  # register -> coefficient

    @staticmethod
    def register(r):
        return Scalar(0, {r: 1})

    @staticmethod
    def of(v, what="value"):
        if isinstance(v, Scalar):
            return v
        import numpy as np

        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return Scalar(int(v))
        raise TypeError(f"{what} must be an integer or a runtime scalar of the sequence, got {v!r}")

    def _combine(self, other, sign):
        o = Scalar.of(other)
        terms = dict(self.terms)
        for r, c in o.terms.items():
            terms[r] = terms.get(r, 0) + sign * c
        return Scalar(self.constant + sign * o.constant, {r: c for r, c in terms.items() if c})

    def __add__(self, other):
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, -1)

    def __rsub__(self, other):
        return Scalar.of(other)._combine(self, -1)

    def __mul__(self, other):
        if isinstance(other, Scalar):
            if other.terms and self.terms:
                raise TypeError("a runtime scalar times a runtime scalar is not affine; multiply by an integer")
            a, k = (self, other.constant) if not other.terms else (other, self.constant)
        else:
            a, k = self, Scalar.of(other).constant
        return Scalar(a.constant * k, {r: c * k for r, c in a.terms.items() if c * k})

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def is_constant(self):
        return not self.terms

    def __bool__(self):
        raise TypeError("a runtime scalar has no value while the sequence body runs; use range_ to loop over it")

    def __index__(self):
        raise TypeError("a runtime scalar has no value while the sequence body runs; use range_ to loop over it")

    def __repr__(self):
        parts = [f"{c}*r{r}" for r, c in sorted(self.terms.items())]
        return "Scalar(" + " + ".join(parts + [str(self.constant)]) + ")"

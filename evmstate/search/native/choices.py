"""Choices drawn in plain Python, recorded as Hypothesis's strategies record them.

NativeData stands where Hypothesis's `st.data()` object stands in a machine's run: `draw(strategy)`
gives a value of the strategy. It knows the strategies evmstate builds, and draws each with one
call into Python's `random` instead of a trip through Hypothesis's strategy layer (2 µs where a
nested draw costs 60-110). Every choice is recorded as `(kind, constraints, value)` with the
constraints Hypothesis's own strategy passes to its provider for that draw:

- `integers(min_value=a, max_value=b)`: one integer choice, with the weights IntegersStrategy
  gives the bounds and their neighbours when the range is wider than 127;
- `booleans()`: one boolean choice, p = 0.5;
- `binary(min_size=a, max_size=b)` with b given (`bytes`, `bytesN`): one bytes choice;
- a strategy carrying `evmstate_draw(draw)` (strategy()'s values, accounts, the swarm, a step):
  its own draws, made through this object.

So a run drawn here replays through Hypothesis unchanged, by a provider that returns the recorded
choices (search.guidance's), and Hypothesis shrinks and saves it as one of its own. A strategy it
does not know (a user's own, a filtered one, lists, text) raises Unsupported: that machine runs
under Hypothesis alone.

Fresh values follow Hypothesis's shape, which the search's tuning assumes (the swarm's level is
uniform, as Hypothesis draws it): uniform over a small range; over a wide one the bounds and their
neighbours at Hypothesis's weights, then its integers distribution cut to the range (uniform within
[-256, 256], log-scaled beyond): for an unsigned range the positive half, about 1 value in 12 at most 256.
"""

from __future__ import annotations

import math
import re
from random import Random
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar

from ...files import Bounded

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

Choice = tuple[str, dict[str, Any], Any]  # (kind, constraints, value), as guidance.Choice
T = TypeVar("T")


def drawn_by(strategy: SearchStrategy[T], draw: Callable[[Any], T]) -> SearchStrategy[T]:
    """strategy, carrying `evmstate_draw`: draw(draw function) makes its choices and value as Hypothesis would, and
    NativeData draws it so.
    """
    setattr(strategy, "evmstate_draw", draw)
    return strategy


# one composite per drawer's code (drawn below)
_COMPOSITES: dict[Any, Any] = {}


def drawn(draw: Callable[[Any], T]) -> SearchStrategy[T]:
    """`st.composite(draw)()`, carrying `evmstate_draw` (drawn_by): the same choices, span and value (composite)."""
    return drawn_by(composite(draw), draw)


def composite(draw: Callable[[Any], T]) -> SearchStrategy[T]:
    """`st.composite(draw)()`: the same choices, span and value.

    st.composite reads the source of the function it wraps, each call (inspect.getsource and a parse, some 3 ms: 20
    times the rest of a strategy() call, and a machine's module builds its strategies each time it is loaded). Here
    it wraps one function per drawer's code, once, and that function calls the drawer it is given. Hypothesis labels
    a composite by its function's code and defaults: the default keeps one label per drawer's code, as
    st.composite(draw) had, so that its mutator groups the same spans together and a seed draws as it did.
    """
    build = _COMPOSITES.get(draw.__code__)
    if build is None:
        from hypothesis import strategies as st

        code = draw.__code__
        where = f"{code.co_filename}:{code.co_firstlineno}"

        def drawing(draw_: Any, drawer: Callable[[Any], T], _where: str = where) -> T:
            return drawer(draw_)

        build = _COMPOSITES[code] = st.composite(drawing)
    return build(draw)


# Hypothesis's integers() and binary() with a largest size, as their repr() writes them
_INTEGERS = re.compile(r"^integers\(min_value=(-?[\d_]+), max_value=(-?[\d_]+)\)$")
_BINARY = re.compile(r"^binary\((?:min_size=(\d+), )?max_size=(\d+)\)$")
_BOOLEAN = {"p": 0.5}


class Unsupported(BaseException):
    """Raised when a run draws from a strategy the native loop cannot draw as Hypothesis would.

    A BaseException, so that a run's `except Exception` does not take it for a failure of the machine.
    """

    def __init__(self, strategy: Any) -> None:
        super().__init__(f"{strategy!r} is not a strategy evmstate's own loop draws")
        self.strategy = strategy


def integer_constraints(lo: int, hi: int) -> dict[str, Any]:
    """The constraints Hypothesis's integers(lo, hi) passes to its provider."""
    weights = {lo: 2 / 128, lo + 1: 1 / 128, hi - 1: 1 / 128, hi: 2 / 128} if hi - lo > 127 else None
    return {"min_value": lo, "max_value": hi, "weights": weights, "shrink_towards": 0}


# Hypothesis's integers (its INTEGERS_DISTRIBUTION): uniform within [-INNER, INNER], and beyond it a Student's t of
# DF degrees of freedom over log2(1 + |x|), scaled by SCALE_BITS; the two joined so that the density is continuous at
# ±INNER and the whole has mass 1. A draw within [lo, hi] takes a uniform point between the cumulative shares of lo and
# hi and maps it back: over an unsigned range (lo = 0) it is the positive half alone, where about 1 value in 12 is
# within [0, 256] (taking 4 in 9 there, as an earlier draw here did, left those levels of a puzzle whose answers are
# none of 0 .. 256 all but untried: machines/puzzle.py)
INNER = 256
SCALE_BITS = 13
CONSTANT_SHARE = 0.05
# a range whose cumulative shares are closer than this is drawn uniformly (Hypothesis's own fallback)
NARROW = 1e-13
_LN2 = math.log(2)


def _t_cdf(t: float) -> float:
    """The cumulative share of Student's t with 2 degrees of freedom at t (its closed form)."""
    return 0.5 + t / (2 * math.sqrt(2 + t * t))


def _t_quantile(u: float) -> float:
    """The inverse of _t_cdf, for 0 < u < 1."""
    return (2 * u - 1) / math.sqrt(2 * u * (1 - u))


def _outer_cdf(x: float) -> float:
    return _t_cdf(math.copysign(math.log2(1 + abs(x)), x) / SCALE_BITS)


def _outer_pdf(x: float) -> float:
    y = math.log2(1 + abs(x)) / SCALE_BITS
    return (1 / (2 * math.sqrt(2))) * (1 + y * y / 2) ** -1.5 / (SCALE_BITS * (1 + abs(x)) * _LN2)


# the outer part's weight (ALPHA), the inner's (BETA): equal densities at INNER, total mass 1
_OUTER_INNER = _outer_cdf(INNER) - _outer_cdf(-INNER)
ALPHA = 1 / (_outer_pdf(INNER) * (2 * INNER) + (1 - _OUTER_INNER))
BETA = ALPHA * _outer_pdf(INNER) * (2 * INNER)  # the inner part's mass
LEFT = ALPHA * _outer_cdf(-INNER)  # the mass below -INNER
_OUTER_ABOVE = _outer_cdf(INNER)


def integer_cdf(x: float) -> float:
    """The cumulative share of Hypothesis's integers distribution at x."""
    if x <= -INNER:
        return ALPHA * _outer_cdf(x)
    if x < INNER:
        return LEFT + BETA * (x + INNER) / (2 * INNER)
    return LEFT + BETA + ALPHA * (_outer_cdf(x) - _OUTER_ABOVE)


def integer_quantile(u: float) -> float:
    """The value at cumulative share u (0 < u < 1) of Hypothesis's integers distribution."""
    if u <= LEFT:
        y = SCALE_BITS * _t_quantile(u / ALPHA)
    elif u < LEFT + BETA:
        return -INNER + 2 * INNER * (u - LEFT) / BETA
    else:
        y = SCALE_BITS * _t_quantile((u - LEFT - BETA) / ALPHA + _OUTER_ABOVE)
    y = max(-1023.0, min(1023.0, y))
    return math.copysign(math.expm1(abs(y) * _LN2), y)


def fresh_integer(lo: int, hi: int) -> Callable[[Random], int]:
    """A new value in [lo, hi], in Hypothesis's shape: uniform over a range within [-256, 256]; over a wider one, the
    bounds and their neighbours at Hypothesis's weights, now and then one of its constants, else a draw from its
    integers distribution within [lo, hi] (uniform near zero, log-scaled beyond)."""
    span = hi - lo
    if -INNER <= lo and hi <= INNER:
        return lambda r: lo + int(r.random() * (span + 1))
    edges = (lo, lo + 1, hi - 1, hi)
    weighted = span > 127
    start, end = integer_cdf(lo - 0.5), integer_cdf(hi + 0.5)
    width = end - start
    uniform = width < NARROW

    # Hypothesis takes 1 draw in 20 from its constants (0, 1, the limits of each width): they find off-by-ones
    constants = sorted(
        v
        for v in {
            0, 1, -1, 2, *(2**k - 1 for k in range(8, 257, 8)), *(-(2 ** (k - 1)) for k in range(8, 257, 8)),
            *(2 ** (k - 1) - 1 for k in range(8, 257, 8)),
        }
        if lo <= v <= hi
    )

    left, right, above = LEFT, LEFT + BETA, _OUTER_ABOVE
    inner_scale, sqrt, expm1 = 2 * INNER / BETA, math.sqrt, math.expm1

    def draw(r: Random) -> int:  # a hot path: integer_quantile() inlined
        if constants and r.random() < CONSTANT_SHARE:
            return constants[int(r.random() * len(constants))]
        x = r.random()
        if weighted and x < 6 / 128:
            return edges[0 if x < 2 / 128 else 1 if x < 3 / 128 else 2 if x < 4 / 128 else 3]
        if uniform:
            return r.randint(lo, hi)
        u = start + r.random() * width
        if left < u < right:
            v = round(-INNER + (u - left) * inner_scale)
        else:
            w = u / ALPHA if u <= left else (u - right) / ALPHA + above  # a share of the t distribution
            if not 0 < w < 1:
                return r.randint(lo, hi)
            y = SCALE_BITS * (2 * w - 1) / sqrt(2 * w * (1 - w))
            y = -1023.0 if y < -1023.0 else 1023.0 if y > 1023.0 else y
            v = round(expm1(y * _LN2)) if y >= 0 else -round(expm1(-y * _LN2))
        return lo if v < lo else hi if v > hi else v

    return draw


Drawer = Callable[["NativeData"], Any]
Plain = tuple[str, dict[str, Any], Callable[[Random], Any]]  # one choice: its kind, constraints and fresh value
Found = tuple[Drawer, "Plain | None"]  # a strategy's drawer; its one choice, when it makes one
# each strategy carries how it is drawn in its own __dict__, so that both go together (a machine's
# strategies hold its run, and its run its project: a table of them kept every campaign's alive)
_KEY = "_evmstate_native_drawer"
# id(strategy) -> (the strategy, kept alive so that its id stays its own; how it is drawn): one without a __dict__
_drawers: Bounded[int, tuple[Any, Found]] = Bounded(10_001)


def drawer(strategy: Any) -> Found:
    """How NativeData draws strategy; raises Unsupported for one it cannot draw as Hypothesis would."""
    own = getattr(strategy, "__dict__", None)
    if own is not None:
        found = own.get(_KEY)
        if found is not None:
            return found
    else:
        kept = _drawers.get(id(strategy))
        if kept is not None and kept[0] is strategy:
            return kept[1]
    plain = _plain(strategy)
    if plain is not None:
        kind, constraints, fresh = plain
        made: Drawer = lambda data: data.choose(kind, constraints, fresh)  # noqa: E731
    else:
        direct = getattr(strategy, "evmstate_draw", None)
        if direct is None:
            raise Unsupported(strategy)
        made = lambda data: direct(data.draw)  # noqa: E731
    found = (made, plain)
    if own is not None:
        own[_KEY] = found
    else:
        _drawers[id(strategy)] = (strategy, found)
    return found


def _plain(strategy: Any) -> Plain | None:
    """The one choice a Hypothesis integers(), booleans() or fixed-size binary() makes, or None for another strategy."""
    if getattr(strategy, "evmstate_draw", None) is not None:
        return None
    shown = repr(strategy)
    m = _INTEGERS.match(shown)
    if m is not None:
        lo, hi = int(m.group(1).replace("_", "")), int(m.group(2).replace("_", ""))
        return "integer", integer_constraints(lo, hi), fresh_integer(lo, hi)
    if shown == "booleans()":
        return "boolean", _BOOLEAN, _coin
    m = _BINARY.match(shown)
    if m is not None:
        lo, hi = int(m.group(1) or 0), int(m.group(2))
        if lo > hi:
            return None
        return "bytes", {"min_size": lo, "max_size": hi}, _fresh_bytes(lo, hi)
    return None


def _fresh_bytes(lo: int, hi: int) -> Callable[[Random], bytes]:
    """New bytes: random bytes of the one length of bytesN; else of a length in [lo, hi], now and then all zeros."""
    if lo == hi:
        return lambda r: r.getrandbits(8 * lo).to_bytes(lo, "big") if lo else b""

    def draw(r: Random) -> bytes:
        n = lo + int(r.random() * (hi - lo + 1))
        if not n:
            return b""
        return bytes(n) if r.random() < 0.1 else r.getrandbits(8 * n).to_bytes(n, "big")

    return draw


def _coin(r: Random) -> bool:
    return r.random() < 0.5


class NativeData:
    """One run's draws: the planned choices replayed while they fit, then fresh ones; every choice recorded.

    Plays the part of guidance.GuidedProvider for the Guide (record, replayed): the Guide keeps
    and extends native runs as it does Hypothesis's.
    """

    def __init__(self, random: Random, plan: Sequence[Choice] = ()) -> None:
        self.random = random
        self.plan = plan
        self.record: list[Choice] = []
        self.replayed = 0  # how many of the planned choices this run took
        # set by the engine around a step's draw of its rule: moves a fresh draw off a rule drawn rarely
        # (engine/swarm.py)
        self.avoid: Any = None

    def draw(self, strategy: Any) -> Any:  # a hot path: every value of every step
        """A value of strategy, drawn as Hypothesis's data.draw(strategy) would make its choices."""
        try:
            found = strategy.__dict__[_KEY]
        except (KeyError, AttributeError):
            found = drawer(strategy)
        plain = found[1]
        if plain is None:
            return found[0](self)
        kind, constraints, fresh = plain
        record = self.record
        i = len(record)
        if i < len(self.plan):
            return self.choose(kind, constraints, fresh)
        value = fresh(self.random)
        if self.avoid is not None:
            value = self.avoid(constraints, value, self.random)
        record.append((kind, constraints, value))
        return value

    def choose(self, kind: str, constraints: dict[str, Any], fresh: Callable[[Random], Any]) -> Any:
        """The next choice: the plan's while its kind and constraints are these, else a fresh one."""
        record = self.record
        i = len(record)
        plan = self.plan
        if i < len(plan):
            planned_kind, planned_constraints, value = plan[i]
            if planned_kind == kind and (planned_constraints is constraints or planned_constraints == constraints):
                self.replayed = i + 1
                record.append((kind, constraints, value))
                return value
            self.plan = ()  # the run went another way than the plan's: fresh from here
        value = fresh(self.random)
        if self.avoid is not None and kind == "integer":
            value = self.avoid(constraints, value, self.random)
        record.append((kind, constraints, value))
        return value


def check(strategies: Sequence[tuple[str, Any]], random: Random) -> str | None:
    """Why the native loop cannot draw one of these (name, strategy) pairs, or None when it can draw them all.

    Each is drawn once, outside any run (with no dictionary active), which reaches every
    strategy a draw may nest.
    """
    for name, strategy in strategies:
        try:
            NativeData(random).draw(strategy)
        except Unsupported as exc:
            return f"{name} draws {exc.strategy!r}"
    return None


# Hypothesis's limit on one run's choices (its BUFFER_SIZE, 8 KiB): a run over it is cut short, not replayed
BUFFER_LIMIT = 8 * 1024


def size(choices: Sequence[Choice]) -> int:
    """The choices' size as Hypothesis counts it against its buffer (the length of its serialized form, as its database
    writes it).
    """
    total = 0
    for kind, _, value in choices:
        if kind == "boolean":
            total += 1
            continue
        payload = 1 + value.bit_length() // 8 if kind == "integer" else len(value)
        # a metadata byte, then the payload's length when it does not fit in the metadata byte
        total += 1 + payload if payload < 0b11111 else 1 + max(1, -(-payload.bit_length() // 7)) + payload
    return total

"""Time to find and to shrink each planted bug, and whether the reported program is the minimal one.

Cases: every bundled example that fails (machines/), three snekmate mutants (the projects in
benchmarks/shrink/, see its README): an ERC20 whose burn is unchecked, an ERC4626 whose
withdrawal burns assets instead of shares, a timelock that cancels a done operation; the
planted bugs of the vault-class workload whose minimal programs are known (vault_bugs.py: a
withdrawal that takes more than a strategy's debt, a gain left out of the total debt); Yearn V3's
VaultV3.vy itself with a bug of one line planted in a copy (yearn_v3_bugs.py: a strategy's debt
kept on a withdrawal, a strategy's shares to redeem rounded down); and three
protocols with a bug of one line: a reserve auction that takes a bid at exactly its end time, a
constant-product pool that mints the larger of a deposit's two shares, and wrapped ether forked
from a local anvil node at a pinned block (started here: npm's @foundry-rs/anvil, as the fork
tests install it) whose whole balance cannot be withdrawn. Each is run
on py-evm with its default settings (50 runs x 50 steps, 10 accounts, the default [fuzz] and
[hypothesis] sections; the ladder machine's own max_examples = 300), a cold example database and
a warm build cache, one fresh process per machine file and seed, seeds 0-2. A bug a seed does
not find in its runs is reported "not found", not searched for longer.

Per case and seed: the wall and CPU time to the first failure and of shrinking (wall: the
report's shrink time, from the first failure to the program; CPU: the process's own, from the
first failure to the machine's end, the report's trace included), the steps reported against the
minimal number (* when longer), "least": whether each number is the least that fails given the
other values, "exact": whether the program is one of the minimal programs written out in CASES
(worked out by hand from the contracts; every least value is exact, no contract here rounds
one), the largest number left, and what the shrinker says of the program. --passes adds each
pass's replays and seconds, and the program and its failure when it is not a minimal one.

Run: python benchmarks/shrink.py [--before REV] [--seeds 0,1,2] [--only LABEL,...] [--passes] [--fuzz] [--control] [--workers 1,2] [--backend revm]
  --passes also prints what each pass spent and took off the programs over all the cases (steps, and bits of
  their numbers and waits, per 100 replays): the order the shrinker runs its passes in.
  --backend revm runs every case on revm instead of py-evm.
  --workers N,M: each case is run with -n N and with -n M (default 1,2): the table is the first's, and
  a second one gives shrinking's wall time with each and whether the programs are the same.
  With -n 2 a machine file of one machine runs on one worker, and the second slot is lent to
  its shrinking (evmstate/scale/shrinking.py).
  --before REV also measures the evmstate of git revision REV (checked out into a temporary
  worktree and imported instead of this one), in the same sitting.
  --fuzz instead times `evmstate fuzz --time 60s -n 1 --seed 0 --stop-on-failure` on the four mutant and payment
  machines: the wall time of the whole command (to the first failure: without the flag a campaign keeps going for
  the whole budget; an evmstate from before it stopped there anyway), and the program it reported.
  --control instead runs the mutant machines against snekmate unchanged: each must pass.

Measured on a shared 2-core machine under a load of 13 to 18 (wall times are several times a
quiet machine's; the CPU times less so), `--before baefd54 --passes` (main before the program
shrinker) in one sitting of 41 minutes. Shrinking, wall seconds (CPU seconds) on seeds 0, 1, 2:

  case                   baefd54                               now
  depositer              18.4 18.6   2.2  (2.6  3.3  0.7)      0.9  1.5  1.0  (0.3 0.4 0.3)
  payments routed        10.1  2.2  12.5  (2.9  0.7  3.6)      0.2  0.6  0.5  (0.1 0.2 0.1)
  payments filtered      15.3  1.0  13.7  (4.3  0.3  4.0)      1.7  0.1  0.2  (0.5 0.0 0.1)
  staking                59.5 111.8 143.8 (19.8 34.2 41.7)     3.2  1.5  3.3  (0.7 0.4 0.8)
  fee_vault              44.8 12.6  17.1  (12.5 3.6  5.0)      0.9  0.5  0.4  (0.3 0.2 0.1)
  claims                 39.9 42.1  30.3  (11.4 11.8 8.9)     10.1 12.6  6.0  (3.4 4.1 1.9)
  inbox                  16.6 26.3  65.1  (4.6  7.5 17.6)      0.4  0.5  1.3  (0.1 0.2 0.4)
  ladder                 42.4 20.3  22.1  (11.9 5.9  7.2)      1.0  1.3  2.4  (0.4 0.5 0.8)
  puzzle                 not found, not found, 37.2 (11.5)     not found, not found, 8.1 (2.7)
  sale                   21.0 16.5  55.0  (6.0  4.8 15.7)      1.2  1.5  2.0  (0.4 0.5 0.7)
  erc20 unchecked burn    1.1  3.4   2.6  (0.3  1.0  0.7)      0.1  0.7  0.1  (0.0 0.3 0.1)
  erc4626 burns assets   81.3 33.9  25.7  (23.1 9.7  7.4)      4.2  5.9  2.3  (1.5 2.1 0.8)
  timelock cancels done  74.5 159.6 88.2  (20.9 43.9 24.5)     3.8  3.9  2.9  (1.3 1.3 1.0)

Time to the first failure is alike in both (0.5 to 31 s wall). Every program found, 37 of 39 in
both, is at its minimal length in both. baefd54 reports 35 of the minimal programs: staking on
seed 2 keeps a two-week wait and a fund (1209601 s, 3 steps; a week and a second suffices), and
puzzle's nonces are not the least (up to 1.09e69). Now 31: puzzle likewise (1.03e69, the least
nonces are 50, 296, 160, 185, 578); sale keeps the price and quote it was found with, on all
three seeds (set_price 134217729 / 510968806432447 / 2171710961483738 and the quote of exactly
that price plus its fee, where 1000000 and 1003000 fail: the values pass lowers one number at a
time, and the quote must move with the price); erc4626 on seeds 0 and 1 keeps the receiver of the
deposit and the caller of the redeem at accounts[2] and accounts[8] (accounts[0] for both fails
too; neither can change alone). Shrinking's longest, now: claims, 12.6 s wall and 4.1 s CPU, of
which 1548 replays of the values pass (the claim code fails at one value only, 9.81e76).

Later, with waits drawn on a log scale and revm's signals merged, seed 0 alone on a quiet machine
(load under 1, 56 s in all): all 13 found, shrinking a median 0.4 s (longest 6.6 s, erc4626), 12
of 13 at the minimal length. erc4626 keeps 3 steps where 2 suffice: the run found the failure
through a donation (donate 1999999999, mint 1, redeem 1: the redeem burns more assets than held),
and no pass turns a donation and a mint into one deposit. Staking ended with a second fund after
two weeks and a second, a minimal program of its own now listed in CASES.

`--before baefd54 --fuzz`, a sitting of its own (10 minutes, the same load), wall seconds of
`evmstate fuzz --time 60s -n 1 --seed 0` (each stops at its first failure): baefd54 payments
routed 16.1, erc20 17.2, erc4626 58.6, timelock 285.5; now 18.4, 19.9, 25.3, 25.1, each program
at its minimal length with the least numbers (erc4626's, now, with an account other than
accounts[0] left, as above), none marked "not minimal". `--control`: the three mutant machines
pass against snekmate unchanged on seeds 0-2.

With -n 2 (helpers on the idle slot, evmstate/scale/shrinking.py), seed 0, all 13 cases in one
sitting of 520 s under a load of 10 to 13 falling to 6 (other work on the 2 cores): every program
the same as -n 1's, byte for byte; wall seconds of shrinking, -n 1 against -n 2, all within the
noise of that load (depositer 3.6/3.6, staking 17.0/8.2, claims 4.6/4.7, ladder 4.0/8.3, erc4626
8.3/7.9, timelock 1.5/1.7), with helpers running few of the replays (0 to 31 of 70 to 801): most
replays here take under WORTH_A_HELPER (20 ms), so the worker keeps them. Again at load 4:
erc4626 9.1/15.7 (helpers ran 129 of 801 replays, 173 of them speculative and dropped): with no
free core, a helper takes CPU from the worker. Where a replay waits rather than computes (a
machine whose invariant sleeps 10 ms, tests/cli/test_parallel_shrinking.py's SlowShrink), 17.8 s
becomes 11.1 s.

With the passes for coupled values (engine/shrink/coupled.py: accounts renamed, swapped or merged, the
scan from the bottom, two numbers lowered together, a step deleted while another calls an
earlier rule), the whole script (`--passes`, seeds 0-2, -n 1 and 2) before and after, each a
sitting of its own under a load of 3 to 9 (other work on the 2 cores): 36 of 39 found in both;
at the minimal length 34 before, 35 after; with the least numbers 31, then 35; minimal 31, then
35. Fixed: puzzle on seeds 0 and 2 (nonces up to 1.09e69 and 7.99e8, now the least, 50 296 160
185 578: the scan, 1199 replays, 3.6-3.7 s of 6.8-7.0 s shrinking), staking on seed 2 (a stake by
accounts[1] and a claim by accounts[0], now swapped), inbox on seed 2 (3 steps, an inbox of
accounts[2] funded by accounts[0]: accounts[2] merged into accounts[0], the inbox address
repaired from the comparison, then the funding step deleted). Sale was already minimal on every
seed it finds (the values pass's repair). Left: erc4626 on seed 0 (donate, mint, redeem: that
revert needs a share worth more than an asset; deposit and redeem fail another way). Shrinking's
median 0.7 s before, 1.0 s after; longest 11.5 s before and 15.8 s after, both erc4626 seed 0
(the values pass's 628 replays, as before); ladder 1.0-1.1 s before, 2.4-4.1 s after (the scan
confirms its least openers, 150 replays); claims 0.6-1.5 s, then 1.2-2.6 s (no scan; the replays
that look for its comparisons, and the load). Every program the same with -n 1 and -n 2.

erc4626 on seed 0 is minimal: its failure is the burn's revert in rule_redeem, and a revert needs
a donation before the shares (CASES lists the 3-step programs of that failure apart; the 2-step
ones fail the invariant, another failure for Hypothesis too: another exception, raised elsewhere).
Then, fewer replays for the same programs: a wait tried at none before it is bisected, and a wait
a deleted step passed on tried alone in the singles pass (most waits went there, before the
values); the values pass from the last step (a donation was bisected twice, once against a mint of
1206693 shares and again against 1); a repair trying at a later argument only what that argument
was compared with; the comparisons a candidate met kept for it. `--passes --workers 1 --before
8b630bc`, seeds 0-2, one sitting of 328 s under a load of 1.7 falling to 1.0: every program the
same before and after (36 of 39 found, 36 minimal); replays 8615 before, 6627 after, fewer or as
many in every case (erc4626 seed 0: 833 to 371, its values pass 628 to 291; depositer, payments,
claims, inbox, ladder, puzzle, sale: no waits pass left); shrinking's median 0.4 s, then 0.2 s;
longest 7.9 s (erc4626 seed 0), then 4.5 s (erc4626 seed 0; puzzle 4.1 s, its scan 1199 replays as
before: the least nonces must each be scanned from the bottom). Wall times of one case vary by 1.5x
between sittings at this load (erc4626 seed 0 after: 2.7 to 4.6 s for the same replays).

With the budget in work, the passes in the order of PASSES, replays on revm (py-evm confirming the
program) and reroute changing only a step before the one it deletes: `--seeds 0 --workers 1
--passes`, all 18 cases in one sitting of 1231 s under a load of 15 to 21 (others' work on the 2
cores): 18 of 18 found, every one minimal with the least numbers, none "not minimal". Shrinking,
wall (CPU) seconds: auction 0.8 (0.2), amm 2.8 (0.8), ledger 3.8 (1.1), vault a 35.4 (9.5), vault e
14.8 (4.6), the earlier cases from 1.0 (0.1, fee_vault) to 10.2 (1.9, erc4626). The longest pass's
share of the passes' time: over half in amm (values, 90%), erc4626 (values, 83%), fee_vault (values,
86%, one step), sale, inbox, erc20, staking and payments filtered (51 to 57%). What each pass took
off per 100 replays over the 18 cases, a step counted as 64 bits: chunks 19772, singles 2472, pairs
305, accounts 131, merge 108, waits 47, reroute 42, values 39, scan 22, rules, order and together 0
(pairs runs last, on programs already short; run earlier, its candidates grow with the square of
the program's length). Values first, before reroute, was tried on the vault: vault a then ended at 6
steps (not its minimal 5) after 15.1 s CPU, so reroute stays before values.

With large numbers scaled together first in the values pass (coupled.scale), a repair that did not
fail not tried again while the same number moves, a number settled on a program not tried again on
it, focused replays that skip the checks made before after the same steps, and the replays for
comparisons resumed from a checkpoint in full: `--backend revm --seeds 0,1,2 --workers 1 --passes
--before main`, one sitting of 2830 s under a load of 9 to 20 (others' work on the 2 cores; wall
and CPU seconds are not comparable between the two trees), 47 of 54 found in both, the same
steps, least numbers and minimality everywhere; the programs the same but the AMM's on seeds 0
and 2, another point of the hyperbola, each number still the least given the others: (1001,
1001), (1, 2) became (136, 7368), (1, 8), and (2193, 457), (3, 1) became (7534, 133), (8, 1).
Replays (work), main then now: AMM 193 (593) / 156 (505) / 450 (1434) -> 146 (465) / 116 (385) /
117 (359), the values pass 86/89/97% -> 79/89/87% of the passes' time; erc4626 seed 0 200 (797) ->
188 (765), values 79% -> 72%; vault a seed 2 165 (789) -> 169 (820); vault e 90 (528) / 98 (572)
-> 92 (521) / 105 (601), chunks 68/65% -> 64/60%; auction 38/45/41 -> 50/56/53, fixed after
this sitting by trying each large number at its target alone before scaling (shrink_again.py:
seed 0 back at 38); every other case within one replay.

`python benchmarks/shrink_again.py` shrinks the same found programs with both trees (replays
and work do not depend on the load; CPU of shrink_program alone less so). At a load of 12 to 19:
vault a seed 2's steps replayed for comparisons 72 -> 51 and invariant_limits checks 862 -> 767;
vault e seed 0's invariant_accounting checks 739 -> 672; CPU of shrinking, main then now, vault a
2.2-3.0 s -> 2.5-2.8 s, vault e 1.8 s -> 1.5-2.1 s, vault e seed 2 on py-evm (candidates on revm)
2.05 -> 1.93 s: at that load the CPU figures move by a third between runs of one tree. The vault's
shrinking is its steps: a step is about 23 calls, and the invariant a focused replay checks (4 to
13 calls) after it; chunks (delete half, a quarter, ...) takes 56 to 65% of vault e's passes'
time on 43 to 47 steps found, and values most of the AMM's, whose two steps are numbers only.

With each number bisected from where the scale left it (the scale's last step that did not fail:
IntDomain.minimize's near) and, in a later round, from the least it found before (without the
contracts' numbers and small values below it, tried then), a small value found failing kept
without asking those below it again, and a value whose repairs did not fail not repaired again in
later rounds: `shrink_again.py --before main`, all 18 cases, seeds 0-2, one sitting under a load
of 5 to 12: every program the same in both trees; replays 5203 -> 5109, work 19137 -> 18685. The
AMM 149/95/121 -> 103/79/104 replays (work 475/302/371 -> 337/255/327), its values pass 128/82/106
-> 82/66/89; erc4626 seed 0 190 -> 183, staking seed 1 171 -> 167, sale seed 1 58 -> 54 (work 228
-> 183); puzzle seed 2, vault a seeds 1 and 2 and vault e seed 1 less work for the same replays
(fewer replays for comparisons); every other case the same. `--backend
revm --seeds 0,1,2 --passes --workers 1 --before main` on erc4626, the vault's a and e, timelock,
auction, AMM and ledger (one sitting of 1554 s, load 6 to 12): 17 of 21 found in both, the same
steps, least numbers and minimality (vault a seed 2's numbers not the least in both), values 739
-> 653 replays (2995 -> 2696 work), shrinking at most 8.8 s wall, 3.6 s CPU (vault a seed 2; 6.8
s and 2.8 s at main, the same replays: the load).

The values pass is still 77 to 87% of the AMM's passes' time. On the same found programs (seeds
0/1/2, replays charged): every other pass together 21/13/15 replays; values 82/66/89, of which the
scale 16/16/25, bisection 46/35/46 (37/30/38 replayed, the rest answered by replays before), the
comparisons' moves 8/12/6, repairs 12/3/12, and 18/11/14 replays that look for comparisons (each
about two replays' time). Four numbers of 8 to 15 bits, one of them drawn near 2**62, cannot take
fewer: the scale's bisection of the factor to 1/32 costs 11 to 16, the large one's bit length
then its octave 10 to 13, and each number's least is confirmed by its target and the number below
it (8 at least), more than every other pass together.

With a step's two numbers on a hyperbola balanced (moves.balance), a number compared with an equal
value taken as at a line (one replay to confirm it; equal numbers of several steps too), and the
next number down not asked twice: `--passes --seeds 0,1,2 --workers 1 --before main` on the vault's
a and e, the auction, the AMM and the ledger, revm (load 1.0 to 1.5) then py-evm (1.5 to 2.2, a
test run beside part of it): 13 of 15 found in both on each backend, every one minimal with the
least numbers in both. The AMM's programs are now (1001, 1001) then (2, 1) or (1, 0) on every seed
and backend, where main's stopped at (2278, 440), (1, 1002001) and (21783, 46); revm seed 1's
failure is the add that succeeded where the model expects a revert (its smaller share 0), which
amm_least now judges by its own least numbers: main's (1, 1002001), (1, 0) was the least given the
others there too, 21 bits where (1001, 1001) is 20. Replays (work), main then now, revm: AMM
107/77/113 -> 89/51/89 (334/246/368 -> 235/137/254), ledger 34/72/45 -> 28/60/33, auction 55/42/47
-> 54/41/46, vault e the same, vault a seed 1 284 -> 285; py-evm: AMM 107/108/113 -> 89/85/89,
ledger 49/81/45 -> 37/69/33, vault a seed 0 205 -> 206. The longest pass's share of the passes'
time, main then now: the AMM's values 67/89/71% -> 75/75/81% on revm (64/77/70% -> 72/90/80% on
py-evm: the together pass's 28 to 34 replays are gone, and what is left is the values pass's
scaling, the balance and each number's confirmation); the ledger's chunks 51% -> 58% on revm seed 0
(its values pass 7 -> 1 replay; chunks, 12 replays on 23 steps, is most of what is left), values 46%
-> 34% on seed 2; vault a on py-evm 55% -> 49%, vault e on py-evm seed 0 57% (chunks) in both.
Shrinking at most 1.2 s wall (1.6 s CPU) on revm and 4.5 s wall (1.7 s CPU, under the test run) on
py-evm, vault a.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from math import isqrt
from typing import Callable
from pathlib import Path

from eth_utils import keccak

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROJECTS = HERE / "shrink"
sys.path.insert(0, str(HERE))

import vault_bugs  # noqa: E402  (the vault project and its planted bugs)
import yearn_v3_bugs  # noqa: E402  (Yearn V3's VaultV3.vy and the bugs planted in a copy of it)


def ladder_openers() -> list[int]:
    """For each rung of contracts/Ladder.vy, the least x that opens it."""
    def opens(rung: int, x: int) -> bool:
        return int.from_bytes(keccak(rung.to_bytes(32, "big") + x.to_bytes(32, "big") + (129).to_bytes(32, "big")), "big") % 251 == 0

    return [min(x for x in range(256) if opens(rung, x)) for rung in range(4)]


def puzzle_nonces() -> list[int]:
    """For each level of contracts/Puzzle.vy (and the one too many), the least nonce that solves it."""
    def solves(level: int, nonce: int) -> bool:
        return int.from_bytes(keccak(level.to_bytes(32, "big") + nonce.to_bytes(32, "big")), "big") < 2**248

    return [next(n for n in range(10**6) if solves(level, n)) for level in range(5)]


@dataclass(frozen=True)
class Case:
    """A machine with a planted bug, and its minimal programs.

    minimal: programs, one line per step as evmstate prints them now; the reported program is
    minimal when it is one of those without a `_`. `_` stands for any value: such a program says
    which numbers are the least that fail whatever the other values are (the first one whose
    other values match the reported program's is the one its numbers are checked against).
    others: the same bug met as another failure (another rule's revert where minimal's fail an
    invariant): (a text of that failure's message, its minimal programs). The shrinker keeps the
    failure it found, as Hypothesis keeps its interesting origin (the exception's type and where it
    was raised), so a program is minimal among those that fail the same way.
    """

    label: str
    project: str  # "example" (the bundled project), a folder of benchmarks/shrink/, "vault-X": the vault with its bug X (vault_bugs.py), or "yearn_v3-X" (yearn_v3_bugs.py)
    path: str  # the machine file, from the project's root
    name: str  # the machine
    minimal: tuple[str, ...]
    others: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # for a failure whose least numbers are a family (values on a curve), not a list: whether a program's numbers are
    # each the least that fails given the others; such a program is minimal when it is like one of minimal's
    least: Callable[[list[tuple], str | None], bool] | None = None

    def minimal_for(self, message: str | None) -> tuple[str, ...]:
        """The minimal programs of the failure whose message (or output) is given."""
        return next((programs for text, programs in self.others if message and text in message), self.minimal)

    def steps(self, message: str | None = None) -> int:
        return calls(parse(self.minimal_for(message)[0].splitlines()))


def amm_least(program: list[tuple], message: str | None = None) -> bool:
    """Whether two adds' numbers, (a0, a1) then (b0, b1), are each the least with which the second add mints the larger of its shares
    (contracts/Pair.vy with the bug: the pool's arithmetic, as machines/amm.py models it). Where the smaller share is 0 the model
    expects a revert ("insufficient liquidity minted"), and the failure is the add that succeeded (message): then with the smaller 0."""
    numbers = [dict(step[3]) for step in program]
    values = [numbers[0]["amount0"], numbers[0]["amount1"], numbers[1]["amount0"], numbers[1]["amount1"]]
    reverted = message is not None and "expected a revert" in message

    def fails(a0: int, a1: int, b0: int, b1: int) -> bool:
        supply = isqrt(a0 * a1)
        if supply <= 1000:
            return False  # the first add reverts
        shares = (b0 * supply // a0, b1 * supply // a1)
        return (0 if reverted else 1) <= min(shares) < max(shares) and (min(shares) == 0) == reverted

    return fails(*values) and all(not fails(*values[:k], values[k] - 1, *values[k + 1 :]) for k in range(4) if values[k] > 0)


# the ledger's three holders' deposits on the node (anvil's accounts 1, 2, 3), and a transfer from the second to the third
DEPOSITS = (1234567890123456789012, 42 * 10**18 + 42, 7 * 10**18 + 5 * 10**17)
MOVED = 5 * 10**17
LEDGER_BALANCES = (DEPOSITS[0], DEPOSITS[1] - MOVED, DEPOSITS[2] + MOVED)


def parse(lines: list[str]) -> list[tuple]:
    """A program's steps as values that do not depend on how a revision prints them (bytes, bundle names)."""
    names: dict[str, int] = {}
    steps: list[tuple] = []

    def value(node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            v = node.value
            return "0x" + v.hex() if isinstance(v, bytes) else v.lower() if isinstance(v, str) and v.startswith("0x") else v
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "accounts":
            return ("account", ast.literal_eval(node.slice))
        if isinstance(node, ast.Name):
            return ANY if node.id == "_" else ("ref", names.get(node.id, node.id))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "HexBytes":
            return ast.literal_eval(node.args[0]).lower()
        return ast.unparse(node)

    for line in lines:
        if line.startswith("state = "):
            continue
        node = ast.parse(line).body[0]
        call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute), line
        steps.append((call.func.value.id, call.func.attr, tuple(value(a) for a in call.args), tuple((k.arg, value(k.value)) for k in call.keywords)))
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in target.elts if isinstance(target, ast.Tuple) else [target]:
                    names[name.id] = len(names)
    return steps


ANY = ("any",)


def same(program: list[tuple], minimal: list[tuple], numbers: bool) -> bool:
    """Whether program is minimal, `_` matching any value; numbers=False: whatever its numbers are."""
    def alike(a: object, b: object) -> bool:
        if b == ANY or (not numbers and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool)):
            return True
        return a == b

    def values(step: tuple) -> list:
        return [*step[2], *(v for _, v in step[3])]

    return len(program) == len(minimal) and all(
        p[:2] == m[:2] and [k for k, _ in p[3]] == [k for k, _ in m[3]] and len(values(p)) == len(values(m)) and all(alike(a, b) for a, b in zip(values(p), values(m)))
        for p, m in zip(program, minimal))


def checks(case: Case, program: list[tuple], message: str | None = None) -> tuple[bool, bool | None]:
    """Whether program is one of the minimal programs of the case's failure (its message), and whether its numbers are the least that fail
    (None: no minimal program is like it)."""
    minimal = [parse(m.splitlines()) for m in case.minimal_for(message)]
    exact = any(program == m for m in minimal if str(ANY) not in str(m))
    like = next((m for m in minimal if same(program, m, numbers=False)), None)
    if case.least is not None and like is not None:
        least = case.least(program, message)
        return exact or least, least
    # a program equal to one of the minimal programs has their least numbers, though the first of their shape may have others
    return exact, None if like is None else exact or same(program, like, numbers=True)



def calls(steps: list[tuple]) -> int:
    return sum(1 for s in steps if s[0] == "state")


def largest(steps: list[tuple]) -> int | None:
    """The largest whole number among the steps' arguments (waits apart)."""
    numbers = [v for s in steps if s[0] == "state" for _, v in s[3] if isinstance(v, int) and not isinstance(v, bool)]
    return max(numbers, default=None)


MEASURE = r'''
import json, sys, time
from pathlib import Path
from evmstate import config as config_mod
from evmstate.runner import Overrides, RunOptions, run
root, path, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
workers = int(sys.argv[4]) if len(sys.argv) > 4 else 1
backend = sys.argv[5] if len(sys.argv) > 5 else "pyevm"
cpu = {}  # machine -> process time at its start, first failure and end (the events' names are the same in every revision)

def on(event):
    at = {"MachineStarted": "start", "FailureFound": "found", "MachineFinished": "end"}.get(type(event).__name__)
    if at is not None:
        cpu.setdefault(event.name, {}).setdefault(at, time.process_time())

cfg = config_mod.load(root)
cfg = cfg.replace(backend=config_mod.BackendConfig(name=backend, named=True))
summary = run(cfg, RunOptions((str(root / path),), overrides=Overrides(seed=seed), save_failures=False, workers=workers), on)
out = []
for r in summary.results:
    f, c = r.failure, cpu.get(r.name, {})
    s = f.shrink if f else None
    out.append({"name": r.name, "status": r.status, "found": r.statistics.get("first failure after"), "run": r.statistics.get("first failure at run"),
                "cpu_found": c["found"] - c["start"] if "found" in c else None, "cpu_shrink": c["end"] - c["found"] if "found" in c else None,
                "program": f.program if f else None, "message": f.message if f else r.error,
                "shrink": s.seconds if s else None, "first_steps": s.first_steps if s else None,
                "hypothesis_steps": s.hypothesis_steps if s else None, "runs": s.runs if s else None, "replays": s.replays if s else None,
                "passes": getattr(s, "passes", None), "gains": getattr(s, "gains", None), "replayed_on": getattr(s, "replayed_on", None), "minimality": getattr(s, "minimality", None), "stopped": getattr(f, "stopped", None),
                "workers": getattr(s, "workers", 1), "helped": getattr(s, "helped", 0)})
print(json.dumps(out))
'''


# the evmstate command, as installed (its entry point)
COMMAND = "import sys; from evmstate_cli.launch import main; sys.argv[0] = 'evmstate'; main()"


class Tree:
    """An evmstate to import: a folder to put first on PYTHONPATH, holding its evmstate and evmstate_cli."""

    def __init__(self, label: str, source: Path, tmp: Path) -> None:
        self.label = label
        self.path = tmp / f"import-{label.replace(' ', '-')}"
        self.path.mkdir()
        (self.path / "evmstate").symlink_to(source / "evmstate")
        (self.path / "evmstate_cli").symlink_to(source / "cli")
        # fuzz keeps going after a machine's first failure unless told to stop (an evmstate from before had no flag)
        knows = "--stop-on-failure" in (source / "cli" / "main.py").read_text()
        self.stop_on_failure: tuple[str, ...] = ("--stop-on-failure",) if knows else ()

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.path), "NO_COLOR": "1", "COLUMNS": "200"}

    def python(self, code: str, *args: str, cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=self.env(), cwd=cwd, timeout=timeout)
ZERO32 = "HexBytes('0x" + "00" * 32 + "')"
CASES = [
    # deposit 1, withdraw 0: the contract's balance is set to 0 instead of lowered by it
    Case("depositer", "example", "machines/depositer.py", "StateMachine", (
        "state.rule_deposit(address=accounts[0], value=1)\nstate.rule_withdraw(address=accounts[0], value=0)",)),
    # authorize an amount the contract authorizes (1 is), void it, capture it
    Case("payments routed", "example", "machines/payments.py", "PaymentsRouted", (
        "authorized_0 = state.authorize(amount=1)\nvoided_0 = state.void(payment=authorized_0)\nstate.capture_voided(payment=voided_0)",)),
    Case("payments filtered", "example", "machines/payments.py", "PaymentsFiltered", (
        "payments_0 = state.authorize(amount=1)\nstate.void(payment=payments_0)\nstate.capture_refused(payment=payments_0)",)),
    # fund, stake 1 wei, a week and a second: the reward accrues past the period; then the staker's
    # claim cannot be paid, or (a failure of its own) after a claim by another account or a second
    # stake of 1 the invariant sees the pool owe more than it holds; or, two weeks and a second on,
    # a second fund leaves it owing more than both funds
    Case("staking", "example", "machines/staking.py", "StakingMachine", tuple(
        f"state.rule_fund()\nstate.rule_stake(staker=accounts[0], amount=1)\nchain.sleep(604801)\nstate.rule_claim(staker=accounts[{i}])" for i in (0, 1))
        + ("state.rule_fund()\nstate.rule_stake(staker=accounts[0], amount=1)\nchain.sleep(604801)\nstate.rule_stake(staker=accounts[0], amount=1)",
           "state.rule_fund()\nstate.rule_stake(staker=accounts[0], amount=1)\nchain.sleep(1209601)\nstate.rule_fund()")),
    # the one fee that skips the cap
    Case("fee_vault", "example", "machines/fee_vault.py", "FeeVaultMachine", ("state.rule_set_fee(fee=84843314297726)",)),
    # register, then claim twice with the code the contract derived for accounts[0]
    Case("claims", "example", "machines/claims.py", "ClaimsMachine", (
        "state.rule_register()\n" + "state.rule_claim(code=98089824643083573293214571647689440406858891577231276115043090024928635288419)\n" * 2,)),
    # open accounts[0]'s inbox, send 1 to it
    Case("inbox", "example", "machines/inbox.py", "InboxMachine", (
        "state.rule_open_inbox(who=accounts[0])\nstate.rule_send(who=accounts[0], to='0xd13311AED2C5bF3621611c3C77C14B7DCf13B64F', amount=1)",)),
    # the least opener of each rung, in order
    Case("ladder", "example", "machines/ladder.py", "LadderMachine", ("\n".join(f"state.rule_climb(x={x})" for x in ladder_openers()),)),
    # the least solving nonce of each level, five levels where four should be all
    Case("puzzle", "example", "machines/puzzle.py", "PuzzleMachine", ("\n".join(f"state.rule_solve(nonce={n})" for n in puzzle_nonces()),)),
    # the least price, and a quote of exactly the price with its fee (1_000_000 + 0.3%)
    Case("sale", "example", "machines/sale.py", "SaleMachine", ("state.rule_set_price(price=1000000)\nstate.rule_buy(quote=1003000)",)),
    # one burn of one more than the sender holds: the supply + 1 from the deployer, or 1 from any other
    Case("erc20 unchecked burn", "erc20", "machines/erc20.py", "ERC20Machine", (
        "state.rule_burn(st_sender=accounts[0], st_amount=255000000000000000001)", "state.rule_burn(st_sender=accounts[1], st_amount=1)",
        "state.rule_burn(st_sender=_, st_amount=1)")),
    # deposit 1 asset (10**9 shares), redeem or withdraw 1: 0 or 1 share is burnt where 1 or 10**9 should be,
    # and the invariant sees the shares the model holds. Or, a failure of its own, the burn reverts: a redeem or
    # withdrawal burns more shares than the owner holds when a share is worth more than an asset, which takes a
    # donation (a deposit or mint into an empty vault makes a share worth 10**-9 asset; a donation alone makes
    # no shares), then shares, then the redeem: 3 steps. No 2-step program reverts so: replayed, any first step
    # (each rule, accounts 0 and 1, 12 amounts from 0 to 200 ether) then a redeem or withdrawal (the same
    # amounts and accounts), 10368 programs: none does (1024 fail the invariant). The least donation is
    # 2 * 10**9 - 1: a share minted for 2 assets is then worth 2 assets on redeem, 1 more than it burns.
    Case("erc4626 burns assets", "erc4626", "machines/erc4626.py", "ERC4626Machine", tuple(
        f"state.rule_deposit(st_caller={a}, st_receiver={a}, st_amount=1)\nstate.rule_{r}(st_caller={a}, st_receiver={a}, st_amount=1)"
        for a in ("accounts[0]", "_") for r in ("redeem", "withdraw")), others=tuple(
        (f"{r} reverted: 'erc20: burn amount exceeds balance'", tuple(
            f"state.rule_donate(st_caller={a}, st_amount=1999999999)\nstate.rule_{shares}(st_caller={a}, st_receiver={a}, st_amount={n})\n"
            f"state.rule_{r}(st_caller={a}, st_receiver={a}, st_amount={amount})"
            for a in ("accounts[0]", "_") for shares, n in (("mint", 1), ("deposit", 2))))
        for r, amount in (("redeem", 1), ("withdraw", 2)))),
    # the vault-class workload's planted bugs whose minimal programs are known (vault_bugs.py says why each is minimal)
    *(Case(f"vault {bug.name} {bug.label}", f"vault-{bug.name}", vault_bugs.MACHINE, "VaultMachine", bug.minimal, bug.others) for bug in vault_bugs.BUGS.values() if bug.minimal),
    # the real VaultV3.vy with a bug planted in a copy (yearn_v3_bugs.py says why each program is minimal)
    *(Case(f"yearn {bug.name} {bug.label}", f"yearn_v3-{bug.name}", yearn_v3_bugs.MACHINE, yearn_v3_bugs.NAME, bug.minimal, bug.others) for bug in yearn_v3_bugs.BUGS.values()),
    # schedule with the least delay, wait for it, execute, cancel the done operation
    Case("timelock cancels done", "timelock", "machines/timelock.py", "TimelockMachine", (
        f"operations_0 = state.schedule(by=0, salt={ZERO32}, extra=1000, caller=accounts[0], new_delay=False)\n"
        "chain.sleep(3600)\nstate.execute(op=operations_0, caller=accounts[0])\nstate.cancel(op=operations_0, caller=accounts[0])",)),
    # the bid that starts the auction (the reserve), a wait of exactly its duration, then a bid at its end: taken where the
    # contract ends the auction at that time (and a bid of 0 is refused as too low where the machine expects "auction ended")
    Case("auction at its end", "auction", "machines/auction.py", "AuctionMachine", (
        "state.rule_bid(bidder=accounts[0], amount=100000000000000000)\nchain.sleep(86400)\nstate.rule_bid(bidder=accounts[0], amount=0)",)),
    # two providers' worth of liquidity where the second add is out of the pool's ratio: minted the larger of its two
    # shares, not the smaller. The first add's numbers are on a hyperbola (isqrt(a0 * a1) > 1000), so its least numbers
    # are any pair none of which can be lower given the other, and the second add's the least given those
    Case("amm mints the larger share", "amm", "machines/amm.py", "AMMMachine", (
        "state.rule_add_liquidity(provider=accounts[0], amount0=1001, amount1=1001)\nstate.rule_add_liquidity(provider=accounts[0], amount0=1, amount1=2)",
        "state.rule_add_liquidity(provider=accounts[0], amount0=_, amount1=_)\nstate.rule_add_liquidity(provider=accounts[0], amount0=_, amount1=_)"), least=amm_least),
    # one withdrawal of a holder's whole balance, as the node has it at the pinned block: refused
    Case("ledger whole balance", "ledger", "machines/ledger.py", "LedgerMachine", (
        f"state.rule_withdraw(owner=accounts[0], amount={LEDGER_BALANCES[0]})",
        "state.rule_withdraw(owner=_, amount=_)")),
]
FUZZ = ["erc20 unchecked burn", "erc4626 burns assets", "timelock cancels done", "payments routed"]

MUTANTS = {  # project: (the file, in snekmate's package or else in the project itself, the line, what it becomes)
    "erc20": ("snekmate/tokens/erc20.vy", '    assert account_balance >= amount, "erc20: burn amount exceeds balance"\n', ""),
    "erc4626": ("snekmate/extensions/erc4626.vy", "    erc20._burn(owner, shares)\n", "    erc20._burn(owner, assets)\n"),
    "timelock": ("snekmate/governance/timelock_controller.vy", "    assert self._is_operation_pending(id), \"timelock_controller: operation cannot be cancelled\"\n",
                 "    assert self._is_operation(id), \"timelock_controller: operation cannot be cancelled\"\n"),
    "auction": ("contracts/Auction.vy", '        assert block.timestamp < self.end_time, "auction ended"\n', '        assert block.timestamp <= self.end_time, "auction ended"\n'),
    "amm": ("contracts/Pair.vy", "        shares = min(amount0 * supply // self.reserve0, amount1 * supply // self.reserve1)\n",
            "        shares = max(amount0 * supply // self.reserve0, amount1 * supply // self.reserve1)\n"),
    "ledger": ("contracts/Ledger.vy", '    assert self.balanceOf[msg.sender] >= amount, "insufficient balance"\n', '    assert self.balanceOf[msg.sender] > amount, "insufficient balance"\n'),
}
# projects whose contracts are deployed on a node and forked at a pinned block (ledger_node())
FORKED = ("ledger",)


def make_project(kind: str, dest: Path, mutate: bool = True) -> Path:
    """A copy of a project with its one line changed (in the installed snekmate package copied beside its evmstate.toml, or
    in its own contract); a forked project's contracts deployed on a node of its own, its [fork] section pointing there."""
    if kind == "example":
        for name in ("contracts", "machines"):
            shutil.copytree(REPO / name, dest / name)
        shutil.copy(REPO / "evmstate.toml", dest / "evmstate.toml")
        return dest
    if kind.startswith("vault-"):
        return vault_bugs.project(dest, kind.removeprefix("vault-") if mutate else None)
    if kind.startswith("yearn_v3-"):
        return yearn_v3_bugs.project(dest, kind.removeprefix("yearn_v3-") if mutate else None)
    shutil.copytree(PROJECTS / kind, dest)
    module, old, new = MUTANTS[kind]
    if module.startswith("snekmate/"):
        import snekmate  # the installed package: its modules are copied, not kept in this repository (AGPL-3.0)

        package = Path(snekmate.__path__[0])
        shutil.copytree(package, dest / "snekmate", ignore=shutil.ignore_patterns("__pycache__", "*.py", "*.pyc"))
    source = (dest / module).read_text()
    assert source.count(old) == 1, f"{kind} {module}: the line to change is not there once: {old!r}"
    if mutate:
        (dest / module).write_text(source.replace(old, new))
    if kind in FORKED:
        url, block = ledger_node((dest / module).read_text())
        with (dest / "evmstate.toml").open("a") as toml:
            toml.write(f'\n[fork]\nurl = "{url}"\nblock = {block}\n')
    return dest


NODES: list = []  # the anvil nodes started, stopped at the end


def ledger_node(source: str) -> tuple[str, int]:
    """A local anvil node where its first account deployed the ledger (source) and accounts 1-3 deposited: its url and the block pinned after."""
    sys.path.insert(0, str(REPO))
    from tests.fork.nodes import ANVIL_ENV, Anvil, anvil_in, install_anvil, rpc

    given = os.environ.get(ANVIL_ENV)
    folder = Path(tempfile.gettempdir()) / f"evmstate-tests-{os.getuid()}" / "anvil"  # where the tests install it (tests/conftest.py)
    binary = (Path(given) if Path(given).is_file() else anvil_in(Path(given))) if given else anvil_in(folder) or install_anvil(folder)
    assert binary is not None, f"${ANVIL_ENV} = {given}: no anvil there"
    node = Anvil(binary)
    NODES.append(node)
    ledger = node.deploy(source)
    holders = rpc(node.url, "eth_accounts")[1:4]
    assert ledger.lower() == "0x5fbdb2315678afecb367f032d93f642f64180aa3", ledger  # as machines/ledger.py has it

    def send(sender: str, data: str, value: int = 0) -> None:
        tx = rpc(node.url, "eth_sendTransaction", {"from": sender, "to": ledger, "data": data, "value": hex(value), "gas": hex(200_000)})
        assert node.receipt(tx)["status"] == "0x1"

    for holder, amount in zip(holders, DEPOSITS):
        send(holder, "0x" + keccak(text="deposit()")[:4].hex(), amount)
    send(holders[1], "0x" + keccak(text="transfer(address,uint256)")[:4].hex() + bytes(12).hex() + holders[2][2:] + MOVED.to_bytes(32, "big").hex())
    return node.url, node.block()


BACKEND = "pyevm"  # --backend


def measure(tree: Tree, root: Path, path: str, seed: int, workers: int = 1) -> list[dict]:
    shutil.rmtree(root / ".evmstate" / "examples", ignore_errors=True)  # a cold example database
    shutil.rmtree(root / ".evmstate" / "fork", ignore_errors=True)  # a forked project's first run against its node
    done = tree.python(MEASURE, str(root), path, str(seed), str(workers), BACKEND, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"{tree.label}, {path}, seed {seed}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def seconds(text: str | None) -> float | None:
    return float(text.rstrip("s")) if text else None


def row(case: Case, seed: int, r: dict) -> dict:
    """What the table shows of one result."""
    out = {"case": case.label, "seed": seed, "status": r["status"], "found": seconds(r["found"]), "shrink": r["shrink"], "cpu_found": r["cpu_found"], "cpu_shrink": r["cpu_shrink"],
           "minimal_steps": case.steps(r["message"]), "passes": r["passes"], "gains": r.get("gains"), "replayed_on": r.get("replayed_on"), "minimality": r["minimality"], "stopped": r["stopped"], "program": r["program"],
           "message": r["message"], "first_steps": r["first_steps"], "runs": r["runs"], "replays": r["replays"],
           "workers": r.get("workers", 1), "helped": r.get("helped", 0)}
    if r["status"] != "failed":
        return out
    steps = parse(r["program"])
    exact, least = checks(case, steps, r["message"])
    out.update(steps=calls(steps), at_minimum=calls(steps) == case.steps(r["message"]), exact=exact, least=least, largest=largest(steps))
    return out


def run_cases(tree: Tree, cases: list[Case], seeds: list[int], tmp: Path, workers: list[int] = [1]) -> list[dict]:
    rows = []
    by_file: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        by_file.setdefault((case.project, case.path), []).append(case)
    roots: dict[str, Path] = {}
    for (project, path), group in by_file.items():
        if project not in roots:
            roots[project] = make_project(project, tmp / f"{tree.label.replace(' ', '-')}-{project}")
            compiled = tree.python(COMMAND, "compile", cwd=roots[project])
            if compiled.returncode != 0:
                raise RuntimeError(f"{tree.label}: evmstate compile in {project}:\n{compiled.stdout}\n{compiled.stderr}")
        for seed in seeds:
            for n in workers:
                results = {r["name"]: r for r in measure(tree, roots[project], path, seed, n)}
                for case in group:
                    rows.append({**row(case, seed, results[case.name]), "n": n})
                    print(f"  {tree.label}: {case.label} seed {seed} -n {n}: {describe(rows[-1])}", file=sys.stderr, flush=True)
    return rows


def by_workers(rows: list[dict], workers: list[int]) -> None:
    """Shrinking's wall time with each -n, and whether the program is the one -n 1 reports (it must be)."""
    print(f"\nshrinking's wall time by -n ({', '.join(map(str, workers))}): a failure shrunk on one worker, its candidates also replayed by helpers on the idle slots")
    print(f"{'case':<22} {'seed':>4} " + " ".join(f"{'-n ' + str(n):>8}" for n in workers) + "  program   helpers' replays")
    keyed = {(r["case"], r["seed"], r["n"]): r for r in rows}
    for case, seed in dict.fromkeys((r["case"], r["seed"]) for r in rows):
        found = [keyed.get((case, seed, n)) for n in workers]
        if any(r is None or r["status"] != "failed" for r in found):
            print(f"{case:<22} {seed:>4} " + " ".join(f"{'-' if r is None or r['status'] != 'failed' else format(r['shrink'], '.1f') + 's':>8}" for r in found))
            continue
        same = "same" if all(r["program"] == found[0]["program"] for r in found) else "DIFFERS"
        print(f"{case:<22} {seed:>4} " + " ".join(f"{r['shrink']:>7.1f}s" for r in found) + f"  {same:<8}  " + ", ".join(f"{r['helped']} of {r['replays']}" for r in found[1:]))


def number(n: int | None) -> str:
    if n is None:
        return "-"
    return str(n) if n < 10**7 else f"{n:.3g}"


def yes(flag: bool | None) -> str:
    return "-" if flag is None else "yes" if flag else "NO"


def describe(r: dict) -> str:
    if r["status"] != "failed":
        return "not found" if r["status"] == "passed" else f"{r['status']}: {r['message']}"
    return f"found {r['found']:.1f}s, shrunk {r['shrink']:.1f}s ({r['cpu_shrink']:.1f}s CPU), {r['steps']}/{r['minimal_steps']} steps, least numbers {yes(r['least'])}, minimal {yes(r['exact'])}"


def longest_share(r: dict) -> float:
    """The longest pass's share of the time all the passes took (the aim: none over half)."""
    times = [s for _, s in r["passes"].values()]
    return max(times) / sum(times) if sum(times) else 0.0


def table(label: str, rows: list[dict], passes: bool) -> None:
    print(f"\n{label}")
    print(f"{'':<27} {'wall time':^15} {'CPU time':^15}")
    print(f"{'case':<22} {'seed':>4} {'found':>7} {'shrink':>7} {'found':>7} {'shrink':>7} {'steps':>7} {'least':>5} {'exact':>5} {'largest':>10}  the shrinker's word")
    for r in rows:
        if r["status"] != "failed":
            print(f"{r['case']:<22} {r['seed']:>4} {'not found' if r['status'] == 'passed' else r['status']}")
            continue
        word = f"stopped by {r['stopped']}" if r["stopped"] else r["minimality"] or ""
        mark = "" if r["at_minimum"] else "*"
        print(f"{r['case']:<22} {r['seed']:>4} {r['found']:>6.1f}s {r['shrink']:>6.1f}s {r['cpu_found']:>6.1f}s {r['cpu_shrink']:>6.1f}s {mark:>1}{r['steps']:>2} of {r['minimal_steps']:<1} "
              f"{yes(r['least']):>5} {yes(r['exact']):>5} {number(r['largest']):>10}  {word}")
        if passes and r["passes"]:
            work = sum(w for w, _, _ in (r.get("gains") or {}).values())
            per = f", {1000 * r['cpu_shrink'] / work:.2f} ms CPU a step of work" if work else ""
            print("    passes: " + ", ".join(f"{k} {n} replays {s:.1f}s" for k, (n, s) in r["passes"].items()) + f"; from {r['first_steps']} steps, {r['runs']} Hypothesis runs; work {work}{per}"
                  + (f"; replays on {r['replayed_on']}" if r.get("replayed_on") else "") + f"; the longest pass {longest_share(r):.0%} of the passes' time")
        if passes and not r["exact"]:
            print("    " + "\n    ".join([*r["program"][1:], f"fails with: {r['message']}"]))
    found = [r for r in rows if r["status"] == "failed"]
    if found:
        shrink, cpu = sorted(r["shrink"] for r in found), sorted(r["cpu_shrink"] for r in found)
        print(f"{len(found)} of {len(rows)} found; shrinking: median {shrink[len(shrink) // 2]:.1f}s wall ({cpu[len(cpu) // 2]:.1f}s CPU), longest {shrink[-1]:.1f}s ({cpu[-1]:.1f}s), "
              f"over 10 s: {sum(s > 10 for s in shrink)} wall, {sum(s > 10 for s in cpu)} CPU; "
              f"at the minimal length: {sum(r['at_minimum'] for r in found)}; with the least numbers: {sum(bool(r['least']) for r in found)}; minimal: {sum(r['exact'] for r in found)}")


def gains(rows: list[dict]) -> None:
    """Each pass over every case found: replays, work (replayed steps), seconds, and what it took off the programs, per 100 replays.

    Steps are the program's steps; bits are those of its numbers, account indices and waits (engine/shrink/outcome.size).
    """
    total: dict[str, list[float]] = {}
    for r in rows:
        for name, (runs, secs) in (r["passes"] or {}).items():
            work, steps, bits = (r.get("gains") or {}).get(name, (0, 0, 0))
            t = total.setdefault(name, [0, 0, 0.0, 0, 0])
            for k, v in enumerate((runs, work, secs, steps, bits)):
                t[k] += v
    if not total:
        return
    print("\neach pass over the cases: what it spent and what it took off, per 100 replays (ordered by steps, then bits, per replay)")
    print(f"{'pass':<10} {'replays':>8} {'work':>8} {'seconds':>8} {'steps':>6} {'bits':>8} {'steps/100':>10} {'bits/100':>9}")
    for name, (runs, work, secs, steps, bits) in sorted(total.items(), key=lambda kv: (-kv[1][3] / max(kv[1][0], 1), -kv[1][4] / max(kv[1][0], 1))):
        print(f"{name:<10} {runs:>8.0f} {work:>8.0f} {secs:>8.1f} {steps:>6.0f} {bits:>8.0f} {100 * steps / max(runs, 1):>10.2f} {100 * bits / max(runs, 1):>9.1f}")


def fuzz(tree: Tree, cases: list[Case], tmp: Path) -> None:
    flag = " ".join(tree.stop_on_failure)
    print(f"\n{tree.label}: evmstate fuzz --time 60s -n 1 --seed 0 {flag} (wall time of the command: to the first "
          "failure)")
    for case in cases:
        root = make_project(case.project, tmp / f"fuzz-{tree.label.replace(' ', '-')}-{case.label.replace(' ', '-')}")
        tree.python(COMMAND, "compile", cwd=root)
        started = time.perf_counter()
        done = tree.python(
            COMMAND, "fuzz", "--time", "60s", "-n", "1", "--seed", "0", *tree.stop_on_failure, case.path,
            "-k", case.name, cwd=root, timeout=900,
        )
        wall = f"{time.perf_counter() - started:5.1f}s wall"
        out = done.stdout
        if "Falsifying example" not in out:
            print(f"{case.label:<22} exit {done.returncode}, {wall}, no failure reported")
            continue
        program = [line for line in out.split("Falsifying example", 1)[1].split("\n\n", 1)[0].splitlines()[1:] if not line.startswith("state = ")]
        steps = parse(program)
        exact, least = checks(case, steps, out)
        flag = ", marked not minimal" if "not minimal" in out else ""
        print(f"{case.label:<22} exit {done.returncode}, {wall}, {calls(steps)} steps of {case.steps(out)}, least numbers {yes(least)}, minimal {yes(exact)}{flag}")


def control(tree: Tree, cases: list[Case], seeds: list[int], tmp: Path) -> None:
    """The machines against the code without its planted bug (snekmate as installed, the protocols' own): each must pass, or what it finds is not the planted bug."""
    print(f"\n{tree.label}: the machines against the code without its planted bug, seeds {','.join(map(str, seeds))}")
    for case in cases:
        if case.project == "example":
            continue
        root = make_project(case.project, tmp / f"control-{tree.label.replace(' ', '-')}-{case.project}", mutate=False)
        tree.python(COMMAND, "compile", cwd=root)
        found = [r for seed in seeds for r in measure(tree, root, case.path, seed) if r["name"] == case.name]
        print(f"{case.label:<22} " + ", ".join(r["status"] if r["status"] == "passed" else f"{r['status']}: {r['message']}" for r in found))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also measure the evmstate of this git revision")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--only", help="comma-separated case labels")
    parser.add_argument("--passes", action="store_true", help="show each shrinker pass, and programs that are not minimal")
    parser.add_argument("--fuzz", action="store_true", help="time evmstate fuzz --time 60s on the mutant and payment machines instead")
    parser.add_argument("--control", action="store_true", help="run the machines against the code without its planted bug instead (each must pass)")
    parser.add_argument("--workers", default="1,2", help="the -n each case is shrunk with (default 1,2); the main table is -n's first")
    parser.add_argument("--backend", choices=("pyevm", "revm"), default="pyevm", help="the backend every case runs on")
    args = parser.parse_args()
    global BACKEND
    BACKEND = args.backend
    seeds = [int(s) for s in args.seeds.split(",")]
    workers = [int(n) for n in args.workers.split(",")]
    cases = [c for c in CASES if args.only is None or c.label in args.only.split(",")]
    if args.fuzz:
        cases = [c for c in cases if c.label in FUZZ]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        trees = [Tree("evmstate now", REPO, tmp)]
        worktree = tmp / "before"
        if args.before:
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(worktree), args.before], check=True, capture_output=True)
            trees.insert(0, Tree(f"evmstate at {args.before}", worktree, tmp))
        try:
            for tree in trees:
                if args.control:
                    control(tree, cases, seeds, tmp)
                elif args.fuzz:
                    fuzz(tree, cases, tmp)
                else:
                    rows = run_cases(tree, cases, seeds, tmp, workers)
                    table(f"{tree.label}: seeds {args.seeds}, default settings, {BACKEND}, -n {workers[0]}", [r for r in rows if r["n"] == workers[0]], args.passes)
                    if args.passes:
                        gains([r for r in rows if r["n"] == workers[0] and r["status"] == "failed"])
                    if len(workers) > 1:
                        by_workers(rows, workers)
        finally:
            for node in NODES:
                node.stop()
            if args.before:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(worktree)], check=False, capture_output=True)
    print(f"\n(took {time.perf_counter() - started:.0f}s, load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

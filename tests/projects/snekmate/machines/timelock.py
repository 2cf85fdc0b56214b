"""snekmate's TimelockController: operations scheduled, waited for, executed and cancelled, by role."""

from dataclasses import dataclass

from evmstate import Bundle, StateMachine, invariant, multiple, reverts, rule, strategy

MIN_DELAY = 3600
ZERO = b"\0" * 32
UNSET, WAITING, READY, DONE = "unset", "waiting", "ready", "done"


@dataclass
class Operation:
    id: bytes
    target: object
    payload: bytes
    salt: bytes
    effect: tuple  # ("count", n) or ("delay", seconds)
    ready_at: int | None = None  # None once cancelled
    done: bool = False


class TimelockMachine(StateMachine):
    operations = Bundle("operations")

    def __init__(cls, accounts, chain, Counter, TimelockControllerMock):
        cls.accounts, cls.chain = accounts, chain
        # accounts[0] holds both roles, so that runs reach executions often
        cls.proposers, cls.executors = {accounts[0], accounts[1]}, {accounts[0], accounts[2]}
        cls.timelock = TimelockControllerMock.deploy(MIN_DELAY, [accounts[0], accounts[1]], [accounts[0], accounts[2]], "0x" + "00" * 20, {"from": accounts[0]})
        cls.counter = Counter.deploy({"from": accounts[0]})

    def setup(self):
        self.count = 0
        self.min_delay = MIN_DELAY
        self.scheduled = {}

    def state(self, op):
        if op.done:
            return DONE
        if op.ready_at is None:
            return UNSET
        return READY if op.ready_at <= self.chain.time() else WAITING

    @rule(target=operations, by=strategy("uint8", max_value=20), salt=strategy("uint8", max_value=3), extra=strategy("uint16", max_value=7200), caller=strategy("address", length=3), new_delay=strategy("bool"))
    def schedule(self, by, salt, extra, caller, new_delay):
        if new_delay:
            target, payload, effect = self.timelock, self.timelock.update_delay.encode_input(by * 600), ("delay", by * 600)
        else:
            target, payload, effect = self.counter, self.counter.increment.encode_input(by), ("count", by)
        salt = salt.to_bytes(32, "big")
        delay = max(0, self.min_delay + extra - 1000)  # below the minimum delay by up to 1000 seconds, never below zero (a uint256)
        args = (target, 0, payload, ZERO, salt, delay)
        op_id = self.timelock.hash_operation(target, 0, payload, ZERO, salt)
        known = self.scheduled.get(op_id)
        if caller not in self.proposers:
            with reverts("access_control: account is missing role"):
                self.timelock.schedule(*args, {"from": caller})
        elif known is not None and self.state(known) != UNSET:
            with reverts("timelock_controller: operation already scheduled"):
                self.timelock.schedule(*args, {"from": caller})
        elif delay < self.min_delay:
            with reverts("timelock_controller: insufficient delay"):
                self.timelock.schedule(*args, {"from": caller})
        else:
            tx = self.timelock.schedule(*args, {"from": caller})
            assert tx.events["CallScheduled"]["id"] == op_id
            op = Operation(op_id, target, payload, salt, effect, self.chain.time() + delay)
            self.scheduled[op_id] = op
            return op
        return multiple()

    @rule(seconds=strategy("uint16", max_value=20000))
    def sleep(self, seconds):
        self.chain.sleep(seconds)

    @rule(op=operations, caller=strategy("address", length=3))
    def execute(self, op, caller):
        args = (op.target, 0, op.payload, ZERO, op.salt)
        if caller not in self.executors:
            with reverts("access_control: account is missing role"):
                self.timelock.execute(*args, {"from": caller})
        elif self.state(op) != READY:
            with reverts("timelock_controller: operation is not ready"):
                self.timelock.execute(*args, {"from": caller})
        elif op.effect == ("count", 13):
            with reverts("counter: unlucky"):
                self.timelock.execute(*args, {"from": caller})
        else:
            self.timelock.execute(*args, {"from": caller})
            op.done = True
            kind, value = op.effect
            if kind == "count":
                self.count += value
            else:
                self.min_delay = value

    @rule(op=operations, caller=strategy("address", length=3))
    def cancel(self, op, caller):
        if caller not in self.proposers:
            with reverts("access_control: account is missing role"):
                self.timelock.cancel(op.id, {"from": caller})
        elif self.state(op) not in (WAITING, READY):
            with reverts("timelock_controller: operation cannot be cancelled"):
                self.timelock.cancel(op.id, {"from": caller})
        else:
            self.timelock.cancel(op.id, {"from": caller})
            op.ready_at = None

    @invariant()
    def matches_model(self):
        assert self.counter.count() == self.count
        assert self.timelock.get_minimum_delay() == self.min_delay
        for op in self.scheduled.values():
            state = self.state(op)
            assert self.timelock.is_operation_done(op.id) == (state == DONE)
            assert self.timelock.is_operation_ready(op.id) == (state == READY)
            assert self.timelock.is_operation_pending(op.id) == (state in (WAITING, READY))

"""Reading pyrevm's journal text (evm/revm/journal.py): the storage of every account, past code of any length and state."""

from __future__ import annotations

from eth_utils import keccak

from evmstate.evm.revm import journal

SENDER = "11" * 20
TOKEN = "22" * 20
OTHER = "33" * 20


def account(
    address: str, code: bytes | None, slots: dict[int, tuple[int, int]], *, state: str = "Raw", nonce: int = 1, empty_hash: bool = False
) -> str:
    """One account as revm's JournaledState prints it (revm 8, pyrevm 0.3.7)."""
    code_hash = keccak(code).hex() if code and not empty_hash else journal.EMPTY_CODE_HASH.hex()
    if code is None:
        shown = "None"
    elif state == "Raw":
        shown = f"Some(Bytecode {{ bytecode: 0x{code.hex()}, state: Raw }})"
    else:
        padded = code + b"\0" * 33
        jumps = 'jump_map: JumpMap { map: "00" }'
        shown = f"Some(Bytecode {{ bytecode: 0x{padded.hex()}, state: Analysed {{ len: {len(code)}, {jumps} }} }})"
    storage = ", ".join(
        f"{k}: StorageSlot {{ previous_or_original_value: {old}, present_value: {new} }}" for k, (old, new) in slots.items()
    )
    return (
        f"0x{address}: Account {{ info: AccountInfo {{ balance: 0, nonce: {nonce}, code_hash: 0x{code_hash}, code: {shown} }}, "
        f"storage: {{{storage}}}, status: AccountStatus(Touched) }}"
    )


def text(*accounts: str) -> str:
    state = ", ".join(accounts)
    return f"JournaledState {{ state: {{{state}}}, transient_storage: {{}}, logs: [], depth: 1, journal: [], spec: CANCUN }}"


CODE = bytes(range(256)) * 9  # long enough that a wrong distance lands far from the storage


def test_storage_is_found_past_code_in_every_state_and_length():
    before = {bytes.fromhex(TOKEN): [0, 1, keccak(CODE)], bytes.fromhex(SENDER): [0, 1, journal.EMPTY_CODE_HASH]}
    texts = [
        text(account(TOKEN, CODE, {5: (0, 7)}), account(SENDER, None, {})),  # the distance past CODE is learnt here
        text(account(TOKEN, CODE, {5: (0, 8), 6: (1, 1)})),  # used here
        text(account(TOKEN, None, {5: (0, 9)})),  # the same hash without its code
        text(account(TOKEN, CODE, {5: (0, 10)}, state="Analysed")),  # longer text for the same hash
        text(account(OTHER, CODE[:7], {1: (0, 2)}), account(TOKEN, CODE, {5: (0, 11)})),  # two codes
    ]
    got = [journal.read_changes(t, before) for t in texts]
    assert [changes[bytes.fromhex(TOKEN)][2] for changes in got] == [{5: 7}, {5: 8}, {5: 9}, {5: 10}, {5: 11}]
    assert got[-1][bytes.fromhex(OTHER)][2] == {1: 2}
    addresses, slots = journal.loaded(texts[-1])
    assert addresses == [bytes.fromhex(OTHER), bytes.fromhex(TOKEN)] and slots == [[("1", "2")], [("5", "11")]]


def test_a_sender_running_with_its_code_under_the_empty_hash_is_read_whole():
    """A sender with code runs with the empty code hash (backend.py): its code says nothing of the distance."""
    short = text(account(SENDER, b"\x60\x00", {3: (0, 4)}, empty_hash=True))
    long = text(account(SENDER, CODE, {3: (0, 5)}, empty_hash=True))
    for t, value in ((long, 5), (short, 4), (long, 5)):  # a distance learnt past the long code would overshoot the short
        header = journal.ACCOUNT.search(t)
        assert header is not None and header.group(4) == journal.EMPTY_CODE_HASH.hex()
        assert journal.loaded(t)[1] == [[("3", str(value))]]

"""The ground ERC721Properties stands on: the adapter (the token, the actors, how to give an actor a token), what
the pack knows of the ids it minted and burnt, and the properties of minting and of transfers, plain and safe.

Safe transfers go to receivers the pack puts on the chain itself (chain.set_code): one that accepts and records what
it was called with, one that reverts, one that answers the wrong value. ERC721Transfers is the part of the pack these
exercise; erc721.py adds approvals and operators, burning and the invariants, in that order, the order the pack's
rules have.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ..contracts.abi import decode
from ..errors import TransactionReverted
from ..spec.markers import precondition, rule
from .base import (
    ACTOR, AMOUNT, FLAG, ZERO_ADDRESS, Adapter, Pack, Sent, adapter_of, events, exercised, expect, expect_reverted,
    leave_out, revert_expected, same, send, shown,
)

MAGIC = bytes.fromhex("150b7a02")  # bytes4(keccak256("onERC721Received(address,address,uint256,bytes)"))
# runtime code: log the calldata (LOG0), return MAGIC; revert; return a zero word
ACCEPTS = bytes.fromhex("366000600037" "366000a0" "63150b7a0260e01b600052" "60206000f3")
REFUSES = bytes.fromhex("60006000fd")
WRONG = bytes.fromhex("60206000f3")
RECEIVERS = {
    "accepts": "0x00000000000000000000000000000000000e7210", "refuses": "0x00000000000000000000000000000000000e7211",
    "answers wrongly": "0x00000000000000000000000000000000000e7212",
}

TRANSFER_FROM = (
    'EIP-721, transferFrom: "Throws unless msg.sender is the current owner, an authorized operator, '
    "or the approved address for this NFT. Throws if _from is not the current owner. "
    'Throws if _to is the zero address. Throws if _tokenId is not a valid NFT."'
)
TRANSFER_EVENT = 'EIP-721, Transfer: "This emits when ownership of any NFT changes by any mechanism."'
RESET = 'EIP-721, Transfer: "At the time of any transfer, the approved address for that NFT (if any) is reset to none."'
OWNER_OF = 'EIP-721, ownerOf: "Find the owner of an NFT"; balanceOf: "Count all NFTs assigned to an owner"'
SAFE = (
    'EIP-721, safeTransferFrom: "When transfer is complete, '
    "this function checks if _to is a smart contract (code size > 0). If so, "
    "it calls onERC721Received on _to and throws if the return value is not "
    'bytes4(keccak256("onERC721Received(address,address,uint256,bytes)"))."'
)


class ERC721Adapter(Adapter):
    """The token under test, the actors, and how to give an actor a token.

    mint(to) gives to a new token and returns its id, or a receipt whose Transfer event names it;
    tokens are ids that exist already; burn=True says the owner may burn(uint256) its token.
    """

    kind = "ERC-721 token"

    def __init__(
        self, token: Any, actors: Iterable[Any] | None = None, *, mint: Callable[[Any], Any] | None = None,
        tokens: Iterable[int] = (), burn: bool | None = None,
    ) -> None:
        super().__init__(token, actors)
        self.require(
            "ERC721Properties",
            ("balanceOf", ["address"]),
            ("ownerOf", ["uint256"]),
            ("transferFrom", ["address", "address", "uint256"]),
            ("approve", ["address", "uint256"]),
            ("getApproved", ["uint256"]),
            ("setApprovalForAll", ["address", "bool"]),
            ("isApprovedForAll", ["address", "address"]),
        )
        self.token = token
        self.minter = mint
        self.tokens = list(tokens)
        self.burnable = self.has("burn", ["uint256"]) if burn is None else burn
        self.enumerable = (
            self.has("totalSupply", []) and self.has("tokenByIndex", ["uint256"])
            and self.has("tokenOfOwnerByIndex", ["address", "uint256"])
        )
        self.safe_with_data = self.has("safeTransferFrom", ["address", "address", "uint256", "bytes"])
        for kind, code in (("accepts", ACCEPTS), ("refuses", REFUSES), ("answers wrongly", WRONG)):
            self.chain.set_code(RECEIVERS[kind], code)

    def mint(self, to: Any) -> int | None:
        """Give to a new token; its id, or None when minting reverts (the minter lost its role)."""
        before = set(self.ids())
        try:
            made = self.minter(to)  # type: ignore[misc]
        except TransactionReverted:
            return None
        if isinstance(made, int):
            return made
        created = [e[2] for e in events(made, self.token, "Transfer") if e[0] == ZERO_ADDRESS]
        if not created:
            new = [i for i in self.ids() if i not in before]
            if not new:
                raise AssertionError(
                    f"ERC721Adapter(mint=...) gave {shown(to)} no token: its receipt has no Transfer(0x0, ...) "
                    "event, and it returned no id"
                )
            return new[0]
        return created[-1]

    def ids(self) -> list[int]:
        """The ids the token says exist (enumerable), else those the adapter was given."""
        if self.enumerable:
            return [self.token.tokenByIndex(i) for i in range(self.token.totalSupply())]
        return list(self.tokens)


class ERC721Transfers(Pack):
    """The mint and transfer properties of ERC721Properties (erc721.py), and what every property of the pack uses."""

    def _erc721(self) -> ERC721Adapter:
        return adapter_of(
            self, "erc721", ERC721Adapter, "ERC721Properties",
            "ERC721Adapter(token, accounts, mint=lambda to: token.mint(to, {'from': accounts[0]}))",
        )

    def _erc721_ghost(self) -> dict[str, Any]:
        """What the pack knows this run: the ids it minted, the ids it burnt."""
        return self.__dict__.setdefault("_erc721_known", {"minted": [], "burnt": set()})

    def _erc721_ids(self) -> list[int]:
        """The ids known to exist now: those the pack minted or the token enumerates, less those burnt."""
        ghost = self._erc721_ghost()
        known = dict.fromkeys([*self._erc721().ids(), *ghost["minted"]])
        return [i for i in known if i not in ghost["burnt"]]

    def _erc721_pick(self, drawn: int, owner: Any = None) -> tuple[int, Any] | None:
        """A token an actor owns (the drawn id when it is one, else one chosen by it) and its owner; minted to owner
        when there is none.
        """
        a = self._erc721()
        owners = {t: a.token.ownerOf(t) for t in self._erc721_ids()}
        ids = [t for t, o in owners.items() if o in a.actors]  # a receiver contract cannot send
        if not ids:
            if a.minter is None:
                return None
            token = self._erc721_mint(owner if owner is not None else a.actors[0])
            return None if token is None else (token, a.token.ownerOf(token))
        token = drawn if drawn in ids else ids[drawn % len(ids)]
        return token, a.actor(owners[token])

    def _erc721_token(self, drawn: int, hint: Any = None) -> tuple[ERC721Adapter, int, Any] | None:
        """The adapter, a token an actor owns (chosen by drawn; minted to the actor hint stands for when there is none)
        and its owner.
        """
        a = self._erc721()
        picked = self._erc721_pick(drawn, None if hint is None else a.actor(hint))
        return None if picked is None else (a, *picked)

    def _erc721_mint(self, to: Any) -> int | None:
        token = self._erc721().mint(to)
        if token is not None:
            self._erc721_ghost()["minted"].append(token)
        return token

    def _erc721_transfer(
        self, caller: Any, owner: Any, to: Any, token: int, safe: str = "", data: bytes = b""
    ) -> tuple[Sent, dict[Any, int], dict[Any, int]]:
        """transferFrom (or safeTransferFrom, with data when given) from caller; balances of owner and to around it."""
        a = self._erc721()
        watched = [x for x in dict.fromkeys([owner, to]) if not same(x, ZERO_ADDRESS)]  # balanceOf(0x0) throws
        before = {x: a.token.balanceOf(x) for x in watched}
        if not safe:
            sent = send(a.token.transferFrom, owner, to, token, sender=caller)
        elif data:
            sent = send(a.token.safeTransferFrom, owner, to, token, data, sender=caller)
        else:
            sent = send(a.token.safeTransferFrom, owner, to, token, sender=caller)
        return sent, before, {x: a.token.balanceOf(x) for x in watched}

    def _erc721_authorize(self, how: int, owner: Any, caller: Any, token: int) -> Any:
        """caller made able to move token: the owner itself (how 0), approved for the token (1) or an operator (2)."""
        a = self._erc721()
        if how % 3 == 0 or caller == owner:
            return owner
        if how % 3 == 1:
            send(a.token.approve, caller, token, sender=owner)
        else:
            send(a.token.setApprovalForAll, caller, True, sender=owner)
        return caller

    def _erc721_may(self, caller: Any, owner: Any, token: int) -> bool:
        a = self._erc721()
        return (
            caller == owner or same(a.token.getApproved(token), caller) or bool(a.token.isApprovedForAll(owner, caller))
        )

    @precondition(
        lambda self: (
            self._erc721().minter is not None
            or leave_out(
                "rule_erc721_mint_assigns_owner", "give ERC721Adapter(mint=...) a function that mints to an account"
            )
        )
    )
    @rule(to=ACTOR)
    def rule_erc721_mint_assigns_owner(self, to="erc721_actor"):
        """A token the adapter mints is owned by its receiver, counted in its balance, and announced by Transfer(0x0,
        receiver, id).

        EIP-721, Transfer: "This event emits when NFTs are created (from == 0) and destroyed (to == 0)."
        """
        a = self._erc721()
        to = a.actor(to)
        before = a.token.balanceOf(to)
        token = self._erc721_mint(to)
        if token is None:
            return exercised("rule_erc721_mint_assigns_owner", False, "a mint to an account that holds a token already")
        expect(
            same(a.token.ownerOf(token), to),
            lambda: f"token {token} was minted to {shown(to)} but ownerOf says {shown(a.token.ownerOf(token))}",
            OWNER_OF,
        )
        expect(
            a.token.balanceOf(to) == before + 1,
            lambda: f"minting token {token} to {shown(to)} took its balance from {before} to {a.token.balanceOf(to)}",
            OWNER_OF,
        )
        exercised("rule_erc721_mint_assigns_owner", before > 0, "a mint to an account that holds a token already")

    @rule(caller=ACTOR, to=ACTOR, token=AMOUNT, how=AMOUNT)
    def rule_erc721_transfer_moves_token(
        self, caller="erc721_actor", to="erc721_actor", token="erc721_id", how="erc721_id"
    ):
        """A transfer by the owner, the approved address or an operator makes the receiver the owner and moves one from
        the owner's balance to the receiver's.

        EIP-721, transferFrom: "Throws unless msg.sender is the current owner, an authorized operator, or the approved
        address for this NFT."
        """
        found = self._erc721_token(token, caller)
        if found is None:
            return
        a, token, owner = found
        to = a.actor(to)
        caller = self._erc721_authorize(how, owner, a.actor(caller), token)
        sent, before, after = self._erc721_transfer(caller, owner, to, token)
        call = f"transferFrom({shown(owner)}, {shown(to)}, {token}) from {shown(caller)}"
        expect(
            not sent.reverted, lambda: f"{call} reverted though the caller may move the token: {sent.error}",
            TRANSFER_FROM,
        )
        expect(
            same(a.token.ownerOf(token), to), lambda: f"{call}: ownerOf({token}) is {shown(a.token.ownerOf(token))}",
            OWNER_OF,
        )
        for x in before:
            change = (1 if x == to else 0) - (1 if x == owner else 0)
            expect(
                after[x] == before[x] + change,
                lambda: f"{call}: the balance of {shown(x)} went from {before[x]} to {after[x]}", OWNER_OF,
            )
        exercised("rule_erc721_transfer_moves_token", owner != to, "a transfer to another account")

    @rule(caller=ACTOR, to=ACTOR, token=AMOUNT)
    def rule_erc721_transfer_emits_transfer_event(self, caller="erc721_actor", to="erc721_actor", token="erc721_id"):
        """A transfer emits Transfer(owner, receiver, id).

        EIP-721, Transfer: "This emits when ownership of any NFT changes by any mechanism."
        """
        found = self._erc721_token(token, caller)
        if found is None:
            return
        a, token, owner = found
        to = a.actor(to)
        sent, _, _ = self._erc721_transfer(owner, owner, to, token)
        if sent.reverted:
            return exercised("rule_erc721_transfer_emits_transfer_event", False, "a transfer to another account")
        found = events(sent.receipt, a.token, "Transfer")
        expect(
            (owner, to, token) in found,
            lambda: (
                f"transferFrom({shown(owner)}, {shown(to)}, {token}) emitted Transfer events {shown(found)}, "
                f"none of them ({shown(owner)}, {shown(to)}, {token})"
            ),
            TRANSFER_EVENT,
        )
        exercised("rule_erc721_transfer_emits_transfer_event", owner != to, "a transfer to another account")

    @rule(approved=ACTOR, to=ACTOR, token=AMOUNT)
    def rule_erc721_transfer_clears_approval(self, approved="erc721_actor", to="erc721_actor", token="erc721_id"):
        """A transfer by the owner of a token with an approved address leaves it with none.

        EIP-721, Transfer: "At the time of any transfer, the approved address for that NFT (if any) is reset to none."
        """
        found = self._erc721_token(token, approved)
        if found is None:
            return
        a, token, owner = found
        approved = a.other(approved, owner)
        if approved is not None:
            send(a.token.approve, approved, token, sender=owner)
        sent, _, _ = self._erc721_transfer(owner, owner, a.actor(to), token)
        if sent.reverted:
            return exercised(
                "rule_erc721_transfer_clears_approval", False, "a transfer of a token with an approved address"
            )
        left = a.token.getApproved(token)
        expect(
            same(left, ZERO_ADDRESS),
            lambda: (
                f"transferFrom({shown(owner)}, {shown(a.actor(to))}, {token}): "
                f"getApproved({token}) is still {shown(left)}"
            ),
            RESET,
        )
        exercised(
            "rule_erc721_transfer_clears_approval", approved is not None,
            "a transfer of a token with an approved address",
        )

    @rule(caller=ACTOR, to=ACTOR, token=AMOUNT)
    def rule_erc721_unauthorized_transfer_reverts(self, caller="erc721_actor", to="erc721_actor", token="erc721_id"):
        """A transfer by an account that is not the owner, the approved address or an operator reverts, and the owner
        keeps the token.

        EIP-721, transferFrom: "Throws unless msg.sender is the current owner, an authorized operator, or the approved
        address for this NFT."
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        caller = a.actor(caller)
        if self._erc721_may(caller, owner, token):
            return exercised(
                "rule_erc721_unauthorized_transfer_reverts", False,
                "a transfer by an account with no right to the token", reverting=True,
            )
        sent, _, _ = self._erc721_transfer(caller, owner, a.actor(to), token)
        expect(
            sent.reverted and same(a.token.ownerOf(token), owner),
            lambda: (
                f"transferFrom({shown(owner)}, {shown(a.actor(to))}, {token}) from {shown(caller)} succeeded, "
                "though it is neither the owner, approved nor an operator"
            ),
            TRANSFER_FROM,
        )
        revert_expected(sent)
        exercised(
            "rule_erc721_unauthorized_transfer_reverts", True, "a transfer by an account with no right to the token",
            reverting=True,
        )

    @rule(caller=ACTOR, other=ACTOR, token=AMOUNT)
    def rule_erc721_transfer_from_wrong_owner_reverts(
        self, caller="erc721_actor", other="erc721_actor", token="erc721_id"
    ):
        """A transfer naming as _from an account that does not own the token reverts, even when the owner sends it.

        EIP-721, transferFrom: "Throws if _from is not the current owner."
        """
        found = self._erc721_token(token, caller)
        if found is None:
            return
        a, token, owner = found
        wrong = a.other(other, owner)
        if wrong is None:
            return
        sent, _, _ = self._erc721_transfer(owner, wrong, a.actor(caller), token)
        expect(
            sent.reverted and same(a.token.ownerOf(token), owner),
            lambda: (
                f"transferFrom({shown(wrong)}, {shown(a.actor(caller))}, {token}) "
                f"from the owner {shown(owner)} succeeded, though {shown(wrong)} does not own it"
            ),
            'EIP-721, transferFrom: "Throws if _from is not the current owner."',
        )
        revert_expected(sent)
        exercised(
            "rule_erc721_transfer_from_wrong_owner_reverts", True, "a transfer naming a non-owner as _from",
            reverting=True,
        )

    @rule(token=AMOUNT, safe=FLAG)
    def rule_erc721_transfer_to_zero_address_reverts(self, token="erc721_id", safe="erc721_flag"):
        """A transfer (or safe transfer) by the owner to the zero address reverts, and the owner keeps the token.

        EIP-721, transferFrom: "Throws if _to is the zero address."
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        sent, _, _ = self._erc721_transfer(owner, owner, ZERO_ADDRESS, token, "safe" if safe else "")
        expect(
            sent.reverted and same(a.token.ownerOf(token), owner),
            lambda: f"{'safeTransferFrom' if safe else 'transferFrom'}({shown(owner)}, 0x0, {token}) succeeded",
            'EIP-721, transferFrom: "Throws if _to is the zero address."',
        )
        revert_expected(sent)
        exercised("rule_erc721_transfer_to_zero_address_reverts", True, "a token to send", reverting=True)

    @rule(caller=ACTOR, to=ACTOR, token=AMOUNT)
    def rule_erc721_transfer_of_invalid_token_reverts(
        self, caller="erc721_actor", to="erc721_actor", token="erc721_id"
    ):
        """A transfer of an id that is not a valid token reverts.

        EIP-721, transferFrom: "Throws if _tokenId is not a valid NFT."
        """
        a = self._erc721()
        ids = self._erc721_ids()
        invalid = max(ids, default=-1) + 1 + token % 1000
        caller = a.actor(caller)
        sent, _, _ = self._erc721_transfer(caller, caller, a.actor(to), invalid)
        expect_reverted(
            sent,
            lambda: (
                f"transferFrom({shown(caller)}, {shown(a.actor(to))}, {invalid}) from {shown(caller)} succeeded, "
                f"though {invalid} is not a token"
            ),
            'EIP-721, transferFrom: "Throws if _tokenId is not a valid NFT."',
        )
        exercised(
            "rule_erc721_transfer_of_invalid_token_reverts", bool(ids), "a token existing beside the invalid id",
            reverting=True,
        )

    @rule(to=ACTOR, token=AMOUNT, receiver=FLAG, data=FLAG)
    def rule_erc721_safe_transfer_moves_token(
        self, to="erc721_actor", token="erc721_id", receiver="erc721_flag", data="erc721_flag"
    ):
        """A safe transfer by the owner to an account, or to a contract that accepts it, moves the token; the contract
        is called with (operator, from, id, data).

        EIP-721, safeTransferFrom: "When transfer is complete, this function checks if _to is a smart contract (code
        size > 0). If so, it calls onERC721Received on _to"
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        to = RECEIVERS["accepts"] if receiver else a.actor(to)
        payload = b"\x01evmstate" if data and a.safe_with_data else b""
        sent, _, _ = self._erc721_transfer(owner, owner, to, token, "safe", payload)
        call = (
            f"safeTransferFrom({shown(owner)}, {shown(to)}, "
            f"{token}{', ' + shown(payload) if payload else ''}) from {shown(owner)}"
        )
        expect(
            not sent.reverted and same(a.token.ownerOf(token), to),
            lambda: (
                f"{call} reverted: " + str(sent.error)
                if sent.reverted
                else f"{call} left the token with {shown(a.token.ownerOf(token))}"
            ),
            SAFE,
        )
        if receiver:
            calls = [
                decode(["address", "address", "uint256", "bytes"], log.data[4:])
                for log in sent.receipt.logs
                if same(log.address, to) and log.data[:4] == MAGIC
            ]
            expect(
                any(
                    same(c[0], owner) and same(c[1], owner) and c[2] == token and bytes(c[3]) == payload for c in calls
                ),
                lambda: (
                    f"{call}: the receiver was called with {shown(calls)}, not onERC721Received({shown(owner)}, "
                    f"{shown(owner)}, {token}, {shown(payload)})"
                ),
                SAFE,
            )
        exercised("rule_erc721_safe_transfer_moves_token", bool(receiver), "a safe transfer to a contract")

    @rule(token=AMOUNT, wrongly=FLAG)
    def rule_erc721_safe_transfer_to_refusing_receiver_reverts(self, token="erc721_id", wrongly="erc721_flag"):
        """A safe transfer to a contract that reverts, or answers other than the magic value, reverts, and the owner
        keeps the token.

        EIP-721, safeTransferFrom: "it calls onERC721Received on _to and throws if the return value is not
        bytes4(keccak256("onERC721Received(address,address,uint256,bytes)"))."
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        to = RECEIVERS["answers wrongly" if wrongly else "refuses"]
        sent, _, _ = self._erc721_transfer(owner, owner, to, token, "safe")
        expect(
            sent.reverted and same(a.token.ownerOf(token), owner),
            lambda: (
                f"safeTransferFrom({shown(owner)}, {to}, {token}) "
                f"to a receiver that {'answers wrongly' if wrongly else 'refuses'} succeeded"
            ),
            SAFE,
        )
        revert_expected(sent)
        exercised("rule_erc721_safe_transfer_to_refusing_receiver_reverts", True, "a token to send", reverting=True)

"""ERC721Properties: the EIP-721 non-fungible token standard as rules and invariants a machine inherits.

The adapter (cls.erc721 = ERC721Adapter(token, accounts, mint=...)) names the token, the actors,
and how to give an actor a token; the pack keeps the ids it has seen minted. The adapter and the
properties of minting and transfers, plain and safe, are in erc721_transfers.py.
"""

from __future__ import annotations

from ..errors import TransactionReverted
from ..spec.markers import invariant, precondition, rule
from .base import (
    ACTOR, AMOUNT, FLAG, ZERO_ADDRESS, Pack, events, exercised, expect, leave_out, revert_expected, same, send, shown,
)
from .erc721_transfers import OWNER_OF, ERC721Transfers

APPROVE = (
    'EIP-721, approve: "Change or reaffirm the approved address for an NFT ... '
    'Throws unless msg.sender is the current NFT owner, or an authorized operator of the current owner."'
)
APPROVAL_EVENT = 'EIP-721, Approval: "This emits when the approved address for an NFT is changed or reaffirmed."'
OPERATORS = (
    'EIP-721, setApprovalForAll: "Emits the ApprovalForAll event. '
    'The contract MUST allow multiple operators per owner."'
)
CREATED = 'EIP-721, Transfer: "This event emits when NFTs are created (from == 0) and destroyed (to == 0)."'
INVALID = 'EIP-721, ownerOf: "NFTs assigned to zero address are considered invalid, and queries about them do throw."'
ZERO_BALANCE = (
    'EIP-721, balanceOf: "NFTs assigned to the zero address are considered invalid, '
    'and this function throws for queries about the zero address."'
)
ENUMERABLE = (
    'EIP-721, totalSupply: "A count of valid NFTs tracked by this contract, '
    'where each one of them has an assigned and queryable owner not equal to the zero address"'
)


class ERC721Properties(ERC721Transfers, Pack):
    """EIP-721: ownership, transfers, approvals and operators, safe transfers, burning, enumeration
    (docs/properties.md).

    Switch a property off with `rule_erc721_<name> = None` in the machine's class body.
    """

    prefix = "erc721"
    erc721_actor = ACTOR
    erc721_id = AMOUNT
    erc721_flag = FLAG
    @rule(operator=ACTOR, approved=ACTOR, token=AMOUNT, by_operator=FLAG)
    def rule_erc721_approve_sets_approved(
        self, operator="erc721_actor", approved="erc721_actor", token="erc721_id", by_operator="erc721_flag"
    ):
        """An approve by the owner (or an operator of the owner's) makes getApproved the new address and emits
        Approval(owner, approved, id).

        EIP-721, Approval: "This emits when the approved address for an NFT is changed or reaffirmed."
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        caller = owner
        if by_operator and (op := a.other(operator, owner)) is not None:
            send(a.token.setApprovalForAll, op, True, sender=owner)
            caller = op
        approved = a.other(approved, owner)
        if approved is None:
            return
        sent = send(a.token.approve, approved, token, sender=caller)
        call = f"approve({shown(approved)}, {token}) from {shown(caller)}"
        expect(
            not sent.reverted,
            lambda: (
                f"{call} reverted, though {shown(caller)} {'is an operator of' if caller != owner else 'is'} the "
                f"owner {shown(owner)}: {sent.error}"
            ),
            APPROVE,
        )
        expect(
            same(a.token.getApproved(token), approved),
            lambda: f"{call}: getApproved({token}) is {shown(a.token.getApproved(token))}", APPROVE,
        )
        found = events(sent.receipt, a.token, "Approval")
        expect(
            (owner, approved, token) in found,
            lambda: (
                f"{call} emitted Approval events {shown(found)}, none of them ({shown(owner)}, "
                f"{shown(approved)}, {token})"
            ),
            APPROVAL_EVENT,
        )
        exercised("rule_erc721_approve_sets_approved", caller != owner, "an approve by an operator of the owner's")

    @rule(caller=ACTOR, approved=ACTOR, token=AMOUNT)
    def rule_erc721_unauthorized_approve_reverts(
        self, caller="erc721_actor", approved="erc721_actor", token="erc721_id"
    ):
        """An approve by an account that is neither the owner nor one of its operators reverts, and the approved address
        stays.

        EIP-721, approve: "Throws unless msg.sender is the current NFT owner, or an authorized operator of the current
        owner."
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        caller = a.actor(caller)
        if caller == owner or a.token.isApprovedForAll(owner, caller):
            return exercised(
                "rule_erc721_unauthorized_approve_reverts", False,
                "an approve by an account with no right to the token", reverting=True,
            )
        before = a.token.getApproved(token)
        sent = send(a.token.approve, a.actor(approved), token, sender=caller)
        expect(
            sent.reverted and same(a.token.getApproved(token), before),
            lambda: (
                f"approve({shown(a.actor(approved))}, {token}) from {shown(caller)} succeeded, "
                f"though it is neither the owner {shown(owner)} nor an operator"
            ),
            APPROVE,
        )
        revert_expected(sent)
        exercised(
            "rule_erc721_unauthorized_approve_reverts", True, "an approve by an account with no right to the token",
            reverting=True,
        )

    @rule(owner=ACTOR, first=ACTOR, second=ACTOR, approved=FLAG)
    def rule_erc721_operators_are_independent(
        self, owner="erc721_actor", first="erc721_actor", second="erc721_actor", approved="erc721_flag"
    ):
        """setApprovalForAll sets isApprovedForAll and emits ApprovalForAll; approving a second operator leaves the
        first approved.

        EIP-721, setApprovalForAll: "Emits the ApprovalForAll event. The contract MUST allow multiple operators per
        owner."
        """
        a = self._erc721()
        owner = a.actor(owner)
        first, second = a.other(first, owner), a.other(second, owner)
        if first is None:
            return
        sent = send(a.token.setApprovalForAll, first, True, sender=owner)
        expect(
            not sent.reverted and a.token.isApprovedForAll(owner, first),
            lambda: (
                f"setApprovalForAll({shown(first)}, True) "
                f"from {shown(owner)} {'reverted' if sent.reverted else 'left isApprovedForAll false'}"
            ),
            OPERATORS,
        )
        found = events(sent.receipt, a.token, "ApprovalForAll")
        expect(
            (owner, first, True) in found,
            lambda: (
                f"setApprovalForAll({shown(first)}, True) "
                f"from {shown(owner)} emitted ApprovalForAll events {shown(found)}"
            ),
            OPERATORS,
        )
        if second != first:
            send(a.token.setApprovalForAll, second, bool(approved), sender=owner)
            expect(
                a.token.isApprovedForAll(owner, first)
                and bool(a.token.isApprovedForAll(owner, second)) == bool(approved),
                lambda: (
                    f"after setApprovalForAll({shown(second)}, {bool(approved)}) from {shown(owner)}, "
                    f"isApprovedForAll is {a.token.isApprovedForAll(owner, first)} for {shown(first)} and "
                    f"{a.token.isApprovedForAll(owner, second)} for {shown(second)}"
                ),
                OPERATORS,
            )
        exercised(
            "rule_erc721_operators_are_independent", second != first and bool(approved), "two operators of one owner"
        )

    @precondition(
        lambda self: (
            self._erc721().burnable or leave_out("rule_erc721_burn_destroys_token", "the token has no burn(uint256)")
        )
    )
    @rule(token=AMOUNT)
    def rule_erc721_burn_destroys_token(self, token="erc721_id"):
        """A burn by the owner leaves the id invalid (ownerOf throws), takes one from the owner's balance and emits
        Transfer(owner, 0x0, id).

        EIP-721, Transfer: "This event emits when NFTs are created (from == 0) and destroyed (to == 0)."
        """
        found = self._erc721_token(token)
        if found is None:
            return
        a, token, owner = found
        balance = a.token.balanceOf(owner)
        sent = send(a.token.burn, token, sender=owner)
        expect(not sent.reverted, lambda: f"burn({token}) by its owner {shown(owner)} reverted: {sent.error}", CREATED)
        self._erc721_ghost()["burnt"].add(token)
        try:
            still = a.token.ownerOf(token)
        except TransactionReverted:
            still = None
        expect(still is None, lambda: f"burn({token}): ownerOf({token}) still answers {shown(still)}", INVALID)
        expect(
            a.token.balanceOf(owner) == balance - 1,
            lambda: f"burn({token}): the balance of {shown(owner)} went from {balance} to {a.token.balanceOf(owner)}",
            OWNER_OF,
        )
        found = events(sent.receipt, a.token, "Transfer")
        expect(
            (owner, ZERO_ADDRESS, token) in found,
            lambda: (
                f"burn({token}) emitted Transfer events {shown(found)}, none of them ({shown(owner)}, 0x0, {token})"
            ),
            CREATED,
        )
        exercised("rule_erc721_burn_destroys_token", True, "a burn")

    # -- invariants -------------------------------------------------------------------

    @invariant()
    def invariant_erc721_balances_count_owned_tokens(self):
        """Every actor's balance is the number of tokens whose owner it is (of all the tokens, for an enumerable token;
        else at least those the pack knows).

        EIP-721, balanceOf: "Count all NFTs assigned to an owner"
        """
        a = self._erc721()
        owners = [a.token.ownerOf(t) for t in self._erc721_ids()]
        for actor in a.actors:
            owned, balance = sum(1 for o in owners if same(o, actor)), a.token.balanceOf(actor)
            expect(
                balance == owned if a.enumerable else balance >= owned,
                lambda: f"balanceOf({shown(actor)}) is {balance}, but it owns {owned} of the tokens", OWNER_OF,
            )
        exercised(
            "invariant_erc721_balances_count_owned_tokens", len({o for o in owners}) >= 2,
            "tokens owned by two accounts or more",
        )

    @invariant()
    def invariant_erc721_zero_address_is_invalid(self):
        """balanceOf(0x0) throws, and no token is owned by the zero address (ownerOf of a valid token never answers it).

        EIP-721, balanceOf: "NFTs assigned to the zero address are considered invalid, and this function throws for
        queries about the zero address."
        """
        a = self._erc721()
        try:
            answer = a.token.balanceOf(ZERO_ADDRESS)
        except TransactionReverted:
            answer = None
        expect(answer is None, lambda: f"balanceOf(0x0) answered {answer} instead of throwing", ZERO_BALANCE)
        ids = self._erc721_ids()
        for t in ids:
            expect(
                not same(a.token.ownerOf(t), ZERO_ADDRESS),
                lambda: f"ownerOf({t}) is the zero address instead of throwing", INVALID,
            )
        exercised("invariant_erc721_zero_address_is_invalid", bool(ids), "a token in existence")

    @precondition(
        lambda self: (
            self._erc721().enumerable or leave_out("invariant_erc721_enumeration_agrees", "the token is not enumerable")
        )
    )
    @invariant()
    def invariant_erc721_enumeration_agrees(self):
        """totalSupply counts distinct valid tokens, and tokenOfOwnerByIndex lists exactly each actor's tokens.

        EIP-721, totalSupply: "A count of valid NFTs tracked by this contract, where each one of them has an assigned
        and queryable owner not equal to the zero address"
        """
        a = self._erc721()
        ids = a.ids()
        expect(len(set(ids)) == len(ids), lambda: f"tokenByIndex lists {shown(ids)}: an id twice", ENUMERABLE)
        owners = {t: a.token.ownerOf(t) for t in ids}
        for actor in a.actors:
            listed = sorted(a.token.tokenOfOwnerByIndex(actor, i) for i in range(a.token.balanceOf(actor)))
            mine = sorted(t for t, o in owners.items() if same(o, actor))
            expect(
                listed == mine,
                lambda: f"tokenOfOwnerByIndex lists {shown(listed)} for {shown(actor)}, who owns {shown(mine)}",
                ENUMERABLE,
            )
        exercised("invariant_erc721_enumeration_agrees", len(ids) >= 2, "two tokens or more")

"""ERC2612Properties: EIP-2612 permit (approvals signed off-chain) as rules a machine inherits.

Signatures come from evmstate's accounts (Account.sign_typed_data); the EIP-712 domain is read
from the token's eip712Domain() (ERC-5267) when it has one, else built from name() and the
version the adapter is given, and checked against DOMAIN_SEPARATOR() when the adapter is made.
"""

from __future__ import annotations

from typing import Any, Iterable

from eth_utils import keccak

from ..contracts.abi import encode
from ..errors import MachineDefinitionError
from ..spec.markers import rule
from .base import (
    ACTOR, AMOUNT, FLAG, Adapter, Pack, adapter_of, events, exercised, expect, expect_reverted, revert_expected, send,
    shown,
)

PERMIT_TYPES = {
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ]
}
SEMANTICS = (
    'EIP-2612: "a call to permit(owner, spender, value, deadline, v, r, s) '
    "will set allowance[owner][spender] to value, increment nonces[owner] by 1, "
    'and emit a corresponding Approval event, if and only if the following conditions are met"'
)
REVERT = 'EIP-2612: "If any of these conditions are not met, the permit call must revert."'
DOMAIN_TYPE = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"


class ERC2612Adapter(Adapter):
    """The token whose permit is under test, and the actors who sign; name and version give the EIP-712 domain when the
    token has no eip712Domain().
    """

    kind = "EIP-2612 token"

    def __init__(
        self, token: Any, actors: Iterable[Any] | None = None, *, name: str | None = None, version: str = "1"
    ) -> None:
        super().__init__(token, actors)
        self.require(
            "ERC2612Properties",
            ("permit", ["address", "address", "uint256", "uint256", "uint8", "bytes32", "bytes32"]),
            ("nonces", ["address"]),
            ("DOMAIN_SEPARATOR", []),
            ("allowance", ["address", "address"]),
        )
        self.token = token
        self.domain = self._domain(name, version)

    def _domain(self, name: str | None, version: str) -> dict[str, Any]:
        token = self.token
        if name is None and self.has("eip712Domain", []):
            _, name, version, chain_id, contract, _, _ = token.eip712Domain()
        else:
            chain_id, contract = self.chain.id, token.address
            if name is None:
                name = token.name() if self.has("name", []) else None
        if name is None:
            raise MachineDefinitionError(
                f"ERC2612Adapter: {token!r} has neither eip712Domain() nor name(): give ERC2612Adapter(name=..., "
                "version=...) the EIP-712 domain's name and version"
            )
        separator = keccak(
            encode(
                ["bytes32", "bytes32", "bytes32", "uint256", "address"],
                [keccak(text=DOMAIN_TYPE), keccak(text=name), keccak(text=version), chain_id, contract],
            )
        )
        if bytes(token.DOMAIN_SEPARATOR()) != separator:
            raise MachineDefinitionError(
                f"ERC2612Adapter: DOMAIN_SEPARATOR() of {token!r} is not the EIP-712 domain (name={name!r}, "
                f"version={version!r}, chainId={chain_id}, verifyingContract={contract}): "
                "give ERC2612Adapter(name=..., version=...) the ones the token signs with"
            )
        return {"name": name, "version": version, "chainId": chain_id, "verifyingContract": contract}

    def signed(self, signer: Any, owner: Any, spender: Any, value: int, nonce: int, deadline: int) -> tuple[Any, ...]:
        """The permit's arguments, signed by signer."""
        message = {"owner": owner, "spender": spender, "value": value, "nonce": nonce, "deadline": deadline}
        sig = signer.sign_typed_data(self.domain, PERMIT_TYPES, message)
        return (owner, spender, value, deadline, sig.v, sig.r.to_bytes(32, "big"), sig.s.to_bytes(32, "big"))


class ERC2612Properties(Pack):
    """EIP-2612: a permit sets the allowance, uses up its nonce and emits Approval, and every invalid permit reverts
    (docs/properties.md).
    """

    prefix = "erc2612"
    erc2612_actor = ACTOR
    erc2612_amount = AMOUNT
    erc2612_flag = FLAG

    def _erc2612(self) -> ERC2612Adapter:
        return adapter_of(self, "erc2612", ERC2612Adapter, "ERC2612Properties", "ERC2612Adapter(token, accounts)")

    def _erc2612_permit(
        self, owner: Any, spender: Any, value: int, wait: int, signer: Any = None, nonce_shift: int = 0
    ) -> tuple[Any, str, int, int]:
        """Send a permit of owner's signed by signer (the owner), valid for wait seconds (negative: expired); (sent,
        call, nonce before, allowance before).
        """
        a = self._erc2612()
        nonce = a.token.nonces(owner)
        allowance = a.token.allowance(owner, spender)
        args = a.signed(signer or owner, owner, spender, value, nonce + nonce_shift, max(0, a.chain.time() + wait))
        call = (
            f"permit({shown(owner)}, {shown(spender)}, {value}, deadline {args[3]}) signed by {shown(signer or owner)}"
        )
        return send(a.token.permit, *args, sender=spender), call, nonce, allowance

    @rule(owner=ACTOR, spender=ACTOR, value=AMOUNT, wait=AMOUNT)
    def rule_erc2612_permit_sets_allowance(
        self, owner="erc2612_actor", spender="erc2612_actor", value="erc2612_amount", wait="erc2612_amount"
    ):
        """A permit the owner signed, before its deadline, sets the spender's allowance to its value.

        EIP-2612: "a call to permit(owner, spender, value, deadline, v, r, s) will set allowance[owner][spender] to
        value, increment nonces[owner] by 1, and emit a corresponding Approval event, if and only if the following
        conditions are met"
        """
        a = self._erc2612()
        owner, spender = a.actor(owner), a.actor(spender)
        sent, call, _, before = self._erc2612_permit(owner, spender, value, wait % 10**6)
        expect(not sent.reverted, lambda: f"{call} reverted: {sent.error}", SEMANTICS)
        after = a.token.allowance(owner, spender)
        expect(after == value, lambda: f"{call}: the allowance went from {before} to {after}", SEMANTICS)
        exercised("rule_erc2612_permit_sets_allowance", before != value, "a permit that changes an allowance")

    @rule(owner=ACTOR, spender=ACTOR, value=AMOUNT)
    def rule_erc2612_permit_uses_its_nonce(
        self, owner="erc2612_actor", spender="erc2612_actor", value="erc2612_amount"
    ):
        """A valid permit increments the owner's nonce by one, so that the same signature cannot be used again.

        EIP-2612: "a call to permit(owner, spender, value, deadline, v, r, s) will set allowance[owner][spender] to
        value, increment nonces[owner] by 1, and emit a corresponding Approval event, if and only if the following
        conditions are met"
        """
        a = self._erc2612()
        owner, spender = a.actor(owner), a.actor(spender)
        sent, call, nonce, _ = self._erc2612_permit(owner, spender, value, 3600)
        if sent.reverted:
            return exercised("rule_erc2612_permit_uses_its_nonce", False, "a valid permit")
        expect(
            a.token.nonces(owner) == nonce + 1,
            lambda: f"{call}: the nonce went from {nonce} to {a.token.nonces(owner)}", SEMANTICS,
        )
        again = send(
            a.token.permit, *a.signed(owner, owner, spender, value, nonce, a.chain.time() + 3600), sender=spender
        )
        expect_reverted(again, lambda: f"{call}, sent again with the same nonce {nonce}, succeeded", REVERT)
        exercised("rule_erc2612_permit_uses_its_nonce", True, "a valid permit")

    @rule(owner=ACTOR, spender=ACTOR, value=AMOUNT)
    def rule_erc2612_permit_emits_approval(
        self, owner="erc2612_actor", spender="erc2612_actor", value="erc2612_amount"
    ):
        """A valid permit emits Approval(owner, spender, value).

        EIP-2612: "a call to permit(owner, spender, value, deadline, v, r, s) will set allowance[owner][spender] to
        value, increment nonces[owner] by 1, and emit a corresponding Approval event, if and only if the following
        conditions are met"
        """
        a = self._erc2612()
        owner, spender = a.actor(owner), a.actor(spender)
        sent, call, _, _ = self._erc2612_permit(owner, spender, value, 3600)
        if sent.reverted:
            return exercised("rule_erc2612_permit_emits_approval", False, "a valid permit")
        found = events(sent.receipt, a.token, "Approval")
        expect(
            (owner, spender, value) in found,
            lambda: (
                f"{call} emitted Approval events {shown(found)}, none of them ({shown(owner)}, "
                f"{shown(spender)}, {value})"
            ),
            SEMANTICS,
        )
        exercised("rule_erc2612_permit_emits_approval", value > 0, "a valid permit of a non-zero value")

    @rule(owner=ACTOR, spender=ACTOR, value=AMOUNT, late=AMOUNT)
    def rule_erc2612_expired_permit_reverts(
        self, owner="erc2612_actor", spender="erc2612_actor", value="erc2612_amount", late="erc2612_amount"
    ):
        """A permit past its deadline reverts, and the allowance stays.

        EIP-2612: "The current blocktime is less than or equal to deadline."
        """
        a = self._erc2612()
        owner, spender = a.actor(owner), a.actor(spender)
        sent, call, _, before = self._erc2612_permit(owner, spender, value, -1 - late % 10**6)
        expect(
            sent.reverted and a.token.allowance(owner, spender) == before,
            lambda: f"{call} succeeded though the block time is {a.chain.time()}",
            'EIP-2612: "The current blocktime is less than or equal to deadline." / "If any of these conditions are '
            'not met, the permit call must revert."',
        )
        revert_expected(sent)
        exercised(
            "rule_erc2612_expired_permit_reverts", before != value, "an expired permit that would change an allowance",
            reverting=True,
        )

    @rule(owner=ACTOR, signer=ACTOR, spender=ACTOR, value=AMOUNT, wrong_nonce=FLAG)
    def rule_erc2612_permit_not_signed_by_owner_reverts(
        self, owner="erc2612_actor", signer="erc2612_actor", spender="erc2612_actor", value="erc2612_amount",
        wrong_nonce="erc2612_flag",
    ):
        """A permit signed by another account than the owner (or for another nonce than the owner's) reverts, and the
        allowance stays.

        EIP-2612: "r, s and v is a valid secp256k1 signature from owner of the message"
        """
        a = self._erc2612()
        owner, spender = a.actor(owner), a.actor(spender)
        signer = owner if wrong_nonce else a.other(signer, owner)
        if signer is None:
            return
        sent, call, nonce, before = self._erc2612_permit(owner, spender, value, 3600, signer, 1 if wrong_nonce else 0)
        expect(
            sent.reverted and a.token.allowance(owner, spender) == before,
            lambda: f"{call}{' for nonce ' + str(nonce + 1) if wrong_nonce else ''} succeeded",
            'EIP-2612: "r, s and v is a valid secp256k1 signature from owner of the message" / "nonces[owner] (before '
            'the state update) is equal to nonce."',
        )
        revert_expected(sent)
        exercised(
            "rule_erc2612_permit_not_signed_by_owner_reverts", before != value,
            "a forged permit that would change an allowance", reverting=True,
        )

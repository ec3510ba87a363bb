"""`memhive run` with only MEMHIVE_OIDC__ISSUER and __AUDIENCE, as the README says, against a
small identity provider of this test's own: the JWKS comes from discovery in every service,
so a person's JWT works at the gateway and at ingest's token responder (a token change)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bench.running_stack import free_port
from tests.e2e.process import MemhiveProcess
from tests.integration.stack.identity_provider import CLIENT_ID, Person, stub_provider


@pytest.mark.timeout(600)
def test_issuer_and_audience_alone_sign_people_in_at_the_gateway_and_at_ingest(
    tmp_path: Path,
) -> None:
    with stub_provider() as provider:
        settings = {"MEMHIVE_OIDC__ISSUER": provider.issuer, "MEMHIVE_OIDC__AUDIENCE": CLIENT_ID}
        memhive = MemhiveProcess(tmp_path / "data", free_port(), free_port(), "oidc",
                                 env=settings)  # fmt: skip
        try:
            memhive.wait_until_ready()
            person = Person(sub="ada", workspace="dev", role="admin")
            jwt = provider.id_token(person, nonce="not checked by the API")
            signed_in = {"Authorization": f"Bearer {jwt}"}

            listed = httpx.get(f"{memhive.url}/v1/memories", headers=signed_in, timeout=30)
            assert listed.status_code == 200, listed.text  # the gateway's verifier
            created = httpx.post(f"{memhive.url}/v1/admin/tokens", headers=signed_in,
                                 json={"user": "ada-agent", "role": "agent"}, timeout=30)  # fmt: skip
            assert created.status_code == 201, created.text  # ingest's verifier, via the bus
            assert created.json()["created_by"] == "ada"
            assert memhive.ctrl_c() == 0, memhive.output()
        finally:
            memhive.ensure_gone()

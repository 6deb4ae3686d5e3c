"""Settings of the sandbox wallet server (environment prefix ``SANDBOX_WALLET_``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_API_KEY = "sandbox-wallet-dev-key"
"""The documented development key; every call must carry ``authorization: Bearer <key>``."""


class SandboxWalletSettings(BaseSettings):
    """How the sandbox wallet listens, authenticates and stores its ledger."""

    model_config = SettingsConfigDict(env_prefix="SANDBOX_WALLET_", frozen=True)

    listen: str = Field(
        default="127.0.0.1:50061", description="host:port to listen on (port 0 picks a free one)."
    )
    database_url: str | None = Field(
        default=None,
        description="PostgreSQL URL; unset: DATABASE_URL, else database rgs_sandbox on the local"
        " or embedded server (rgs.devdb).",
    )
    api_key: str = Field(
        default=DEV_API_KEY,
        min_length=8,
        description="Shared secret expected as `authorization: Bearer <api_key>` on every call.",
    )
    allow_plaintext: bool = Field(
        default=False,
        description="Allow plaintext on a non-loopback address (it is always allowed on loopback).",
    )
    tls_cert_file: Path | None = Field(default=None, description="PEM server certificate chain.")
    tls_key_file: Path | None = Field(default=None, description="PEM private key of the cert.")
    tls_client_ca_file: Path | None = Field(
        default=None,
        description="PEM CA bundle; when set, clients must present a certificate it signed (mTLS).",
    )
    seed_demo_players: bool = Field(
        default=True, description="Create the demo players at start when they are missing."
    )
    fault_seed: int | None = Field(
        default=None, description="Seed of the fault-probability RNG, for reproducible runs."
    )
    pool_size: int = Field(default=10, ge=1, description="Database connections to keep open.")
    operator_id: str = Field(
        default="dev-operator",
        description="The one operator this wallet serves: a call naming another operator is "
        "refused INVALID_REQUEST (an RGS hosts many operators, each with its own wallet).",
    )

-- Game controls (issue 23): an operator or the platform's administrator disables a variant, a
-- brand, a table, an operator, a jurisdiction or everything, or puts it under maintenance.
-- One row per control; an empty scope field matches anything. `authority` keeps the
-- operator's controls and the administrator's apart (an operator cannot lift the
-- administrator's). Every replica reads the whole table every second or two into a cache, so
-- a Deal or a bet asks nothing of the database. Expand only: a previous release's replicas
-- do not read it (they refuse nothing).
CREATE TABLE game_controls (
    control_key     text PRIMARY KEY,
    authority       text NOT NULL CHECK (authority IN ('operator', 'admin')),
    operator_id     text NOT NULL DEFAULT '',
    brand_id        text NOT NULL DEFAULT '',
    variant_id      text NOT NULL DEFAULT '',
    table_id        text NOT NULL DEFAULT '',
    jurisdiction_id text NOT NULL DEFAULT '',
    mode            text NOT NULL CHECK (mode IN ('disabled', 'maintenance')),
    message         text NOT NULL DEFAULT '',
    ends_at         timestamptz,
    set_by          text NOT NULL,
    set_at          timestamptz NOT NULL,
    reason          text NOT NULL DEFAULT ''
);

-- The platform administrator's API keys (hashed), apart from the operators' own: an
-- operator's key is unknown to AdminService and an administrator's to OperatorService.
CREATE TABLE admin_api_keys (
    key_hash   text PRIMARY KEY,
    label      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

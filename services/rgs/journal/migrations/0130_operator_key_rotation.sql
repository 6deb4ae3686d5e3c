-- Operator API keys rotated and revoked without a restart: a key may carry an expiry, is revoked
-- (never deleted: its row stays for the audit), and says where it came from (`admin`: an
-- administrator's CreateOperatorKey; `file`: RGS_OPERATOR_KEYS_FILE at `rgs migrate`; `dev`: the
-- sandbox keys). Authentication reads the row on every call, so a revocation holds on every
-- replica at once.
ALTER TABLE operator_api_keys
    ADD COLUMN source        text NOT NULL DEFAULT '',
    ADD COLUMN expires_at    timestamptz,
    ADD COLUMN revoked_at    timestamptz,
    ADD COLUMN revoked_by    text NOT NULL DEFAULT '',
    ADD COLUMN revoke_reason text NOT NULL DEFAULT '';

UPDATE operator_api_keys SET source = 'file' WHERE label = 'operator keys file';
UPDATE operator_api_keys SET source = 'dev' WHERE label = 'sandbox dev key';

CREATE INDEX operator_api_keys_by_operator ON operator_api_keys (operator_id, created_at);

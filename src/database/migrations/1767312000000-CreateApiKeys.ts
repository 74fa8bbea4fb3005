import { MigrationInterface, QueryRunner } from 'typeorm';

// Managed API keys: the key itself is never stored, only its SHA-256 and a short prefix that
// identifies it in `keys list` and `keys revoke`.
export class CreateApiKeys1767312000000 implements MigrationInterface {
  name = 'CreateApiKeys1767312000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (name <> '' AND length(name) <= 200),
        prefix text NOT NULL UNIQUE,
        key_hash bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE api_keys`);
  }
}

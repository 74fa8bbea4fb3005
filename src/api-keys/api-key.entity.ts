import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Operation } from './key-scope';

/** A key issued with `npm run keys -- create`; only its SHA-256 is stored. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'name', type: 'text' })
  name!: string;

  @Column({ name: 'prefix', type: 'text' })
  prefix!: string;

  @Column({ name: 'key_hash', type: 'bytea', select: false })
  keyHash!: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz', insert: false, update: false })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  /** The operations it may use; null: every one. */
  @Column({ name: 'operations', type: 'text', array: true, nullable: true })
  operations!: Operation[] | null;

  /** Whether it sees only the rows of its links (api_key_links). */
  @Column({ name: 'is_link_scoped', type: 'boolean' })
  isLinkScoped!: boolean;
}

import { Entity, PrimaryColumn } from 'typeorm';

/** One link a link-scoped key may see (api_keys.is_link_scoped); the link need not exist. */
@Entity({ name: 'api_key_links' })
export class ApiKeyLink {
  @PrimaryColumn({ name: 'key_id', type: 'uuid' })
  keyId!: string;

  @PrimaryColumn({ name: 'link_id', type: 'text' })
  linkId!: string;
}

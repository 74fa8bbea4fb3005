import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'clients' })
export class Client {
  @PrimaryColumn({ name: 'id', type: 'text' })
  id!: string;

  @Column({ name: 'link_id', type: 'text' })
  linkId!: string;

  @Column({ name: 'is_deleted', type: 'boolean' })
  isDeleted!: boolean;

  @Column({ name: 'status', type: 'text' })
  status!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

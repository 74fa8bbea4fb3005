import { MigrationInterface, QueryRunner } from 'typeorm';
import { NotifyFeedChanges1767916800000 } from './1767916800000-NotifyFeedChanges';

/**
 * The writers of links and clients no longer notify anyone: PostgreSQL serialises the commits of
 * every notifying transaction behind one lock of the whole instance, which cost the writers
 * most of their commit rate. Each pod now reads the feeds' tails instead (docs/operations.md,
 * "Change feeds"). Pods of the previous release still wait on the notifications: while both
 * run, theirs answer long polls at the poll's deadline instead, with nothing lost.
 */
export class StopNotifyingFeedChanges1768003200000 implements MigrationInterface {
  name = 'StopNotifyingFeedChanges1768003200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await new NotifyFeedChanges1767916800000().down(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await new NotifyFeedChanges1767916800000().up(queryRunner);
  }
}

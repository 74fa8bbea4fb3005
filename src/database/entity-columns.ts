import { getMetadataArgsStorage } from 'typeorm';

type EntityClass<T> = abstract new () => T;

/**
 * The table an entity maps, from its @Entity: the repositories' hand-written SQL takes its
 * table and column names from the entities, so the entity is the one place they are spelled.
 */
export function tableOf(entity: EntityClass<unknown>): string {
  const table = getMetadataArgsStorage().tables.find(({ target }) => target === entity);
  if (!table?.name) throw new Error(`${entity.name} names no table`);
  return table.name;
}

/** The column an entity property maps to, from its @Column/@PrimaryColumn `name`. */
export function columnOf<T>(entity: EntityClass<T>, property: keyof T & string): string {
  const column = getMetadataArgsStorage().columns.find(
    ({ target, propertyName }) => target === entity && propertyName === property,
  );
  if (!column?.options.name) throw new Error(`${entity.name}.${property} names no column`);
  return column.options.name;
}

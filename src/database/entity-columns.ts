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

function columnOptions<T>(entity: EntityClass<T>, property: keyof T & string) {
  const column = getMetadataArgsStorage().columns.find(
    ({ target, propertyName }) => target === entity && propertyName === property,
  );
  if (!column) throw new Error(`${entity.name}.${property} maps no column`);
  return column.options;
}

/** The column an entity property maps to, from its @Column/@PrimaryColumn `name`. */
export function columnOf<T>(entity: EntityClass<T>, property: keyof T & string): string {
  const { name } = columnOptions(entity, property);
  if (!name) throw new Error(`${entity.name}.${property} names no column`);
  return name;
}

/** The SQL type of that column, from its `type`: what a value compared with it is cast to. */
export function columnTypeOf<T>(entity: EntityClass<T>, property: keyof T & string): string {
  const { type } = columnOptions(entity, property);
  if (typeof type !== 'string') throw new Error(`${entity.name}.${property} names no SQL type`);
  return type;
}

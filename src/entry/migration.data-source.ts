import { standaloneDataSource } from '../standalone-data-source';

// Entry point for the TypeORM CLI (`npm run migration:run`); the app never imports this file.
export default standaloneDataSource();

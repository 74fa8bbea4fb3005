import { ApiKey } from './api-keys/api-key.entity';
import { Client } from './clients/client.entity';
import { Link } from './links/link.entity';

/** Every entity, for the data sources built outside the app (command-line tools, tests). */
export const ENTITIES = [Link, Client, ApiKey];

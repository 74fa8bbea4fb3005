import { DynamicModule, Module } from '@nestjs/common';
import { validateEnvSections } from './env';

/**
 * The validated environment, one provider per section (DatabaseEnv, HttpEnv, …): a class
 * injects the section it needs, typed, instead of reading variables by name.
 */
@Module({})
export class ConfigModule {
  /** Validates process.env now: a bad environment fails the build of the app, in one message. */
  static forRoot(): DynamicModule {
    const providers = validateEnvSections(process.env).map((section) => ({
      provide: section.constructor,
      useValue: section,
    }));
    return {
      module: ConfigModule,
      global: true,
      providers,
      exports: providers.map(({ provide }) => provide),
    };
  }
}

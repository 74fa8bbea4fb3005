import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller';
import { DocsFiles } from './docs-files';

/** The API reference at /docs: the page, its assets and the OpenAPI document. */
@Module({ controllers: [DocsController], providers: [DocsFiles], exports: [DocsFiles] })
export class DocsModule {}

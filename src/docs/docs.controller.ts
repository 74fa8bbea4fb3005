import { Controller, Get, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { NO_RESOURCE } from '../errors/error-texts';
import { ReadOnlyController } from '../requests/read-only.controller';
import { DocsFiles } from './docs-files';

/**
 * The interactive reference and the OpenAPI document: public, and rate-limited per client IP
 * like every request without a key. Served from memory (DocsFiles).
 */
@Public()
@ApiExcludeController()
@Controller('docs')
export class DocsController extends ReadOnlyController(['', ':file']) {
  constructor(private readonly files: DocsFiles) {
    super();
  }

  @Get()
  page(@Req() req: Request, @Res() res: Response): Promise<void> {
    // Express routes `/docs/` here too; its page links to its files relative to the slash.
    return this.send(req.path.endsWith('/') ? '/' : '', req, res);
  }

  @Get(':file')
  file(@Param('file') name: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.send(name, req, res);
  }

  private async send(name: string, req: Request, res: Response): Promise<void> {
    const file = this.files.get(name);
    if (!file) throw new NotFoundException(NO_RESOURCE);
    res.setHeader('Content-Type', file.type);
    res.setHeader('ETag', file.etag);
    await file.body.send(req, res);
  }
}

import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isStorableText } from '../database/storable-text';
import { LinkResponse } from './dto/link.response';
import { LinksListResponse } from './dto/links-list.response';
import { Link } from './link.entity';

@Injectable()
export class LinksService {
  constructor(@InjectRepository(Link) private readonly links: Repository<Link>) {}

  async list(): Promise<LinksListResponse> {
    const links = await this.links
      .createQueryBuilder('link')
      .orderBy('link.createdAt', 'ASC')
      .addOrderBy('link.id COLLATE "C"', 'ASC')
      .getMany();
    return { data: links.map(LinkResponse.from), meta: { total: links.length } };
  }

  async findOne(id: string): Promise<LinkResponse> {
    const link = isStorableText(id) ? await this.links.findOneBy({ id }) : null;
    if (!link) throw new NotFoundException('No link has this id');
    return LinkResponse.from(link);
  }
}

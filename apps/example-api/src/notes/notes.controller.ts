import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage } from 'syncom-nest';
import { idQueryText } from './id-query';
import { toNoteAnswer } from './note-answer';
import { AddTagsDto, AddViewsDto, CreateNoteDto, ListNotesDto, NOTES_PAGE, RemoveTagsDto, UpdateNoteDto } from './note.dto';

const NOTE = 'Note';
/** Records one GET /notes reads at most, notes or not: a request costs at most this, not the store. */
const SCAN = 10_000;

/** Notes: each REST call is one storage write (or read); the storage syncs it to the hub. */
@Controller('notes')
export class NotesController {
  constructor(@InjectStorage() private readonly storage: Storage) {}

  @Post()
  async create(@Body() note: CreateNoteDto) {
    return { id: await this.storage.insert({ $type: NOTE, ...note }) };
  }

  /**
   * A page of notes in id order, `limit` of them unless the store ends first;
   * the next page is `after` the last id. Other records (another peer's types)
   * are stepped over: read a page of records and kept its notes, a page
   * behind 129 other records held none, and a client paging by the last id
   * stopped there. A request reads at most SCAN records; where it stops on
   * that bound with fewer notes, the header X-Next-After names the last id
   * read, to page on from, percent-encoded as the query takes it
   * (`?after=<X-Next-After>`): an id is any text, and one a header cannot
   * carry (a character past Latin-1, a line break) had answered 500, and so
   * had a lone surrogate, which percent-encoding cannot carry either
   * (idQueryText writes it as WTF-8, which this app's query parser reads).
   */
  @Get()
  async list(@Query() q: ListNotesDto, @Res({ passthrough: true }) res: { setHeader(name: string, value: string): void }) {
    // The pipe checked the query (no transform): limit is still its text here.
    const limit = q.limit === undefined ? NOTES_PAGE : Number(q.limit);
    const notes: ReturnType<typeof toNoteAnswer>[] = [];
    let after = q.after;
    for (let read = 0; notes.length < limit && read < SCAN;) {
      const rows = await this.storage.list({ after, limit: Math.min(NOTES_PAGE, SCAN - read) });
      if (rows.length === 0) return notes;
      read += rows.length;
      for (const r of rows) {
        after = r.id;
        if (r.data.$type !== NOTE) continue;
        notes.push(toNoteAnswer(r.id, r.data));
        if (notes.length === limit) return notes;
      }
    }
    if (notes.length < limit && after !== undefined) res.setHeader('X-Next-After', idQueryText(after));
    return notes;
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    return toNoteAnswer(id, await this.note(id));
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() fields: UpdateNoteDto) {
    await this.note(id);
    await this.storage.update(id, { ...fields });
    return toNoteAnswer(id, await this.note(id));
  }

  @Post(':id/views')
  async view(@Param('id') id: string, @Body() body: AddViewsDto) {
    await this.note(id);
    await this.storage.inc(id, 'views', body?.by ?? 1);
    return { id, views: (await this.note(id)).views };
  }

  @Post(':id/tags')
  async addTags(@Param('id') id: string, @Body() body: AddTagsDto) {
    await this.note(id);
    await this.storage.add(id, 'tags', body.add);
    return toNoteAnswer(id, await this.note(id));
  }

  @Delete(':id/tags')
  async removeTags(@Param('id') id: string, @Body() body: RemoveTagsDto) {
    await this.note(id);
    await this.storage.remove(id, 'tags', body.remove);
    return toNoteAnswer(id, await this.note(id));
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.note(id);
    await this.storage.delete(id);
  }

  private async note(id: string): Promise<Record<string, unknown>> {
    const data = await this.storage.get(id);
    if (!data || data.$type !== NOTE) throw new NotFoundException(`no note ${id}`);
    return data;
  }
}

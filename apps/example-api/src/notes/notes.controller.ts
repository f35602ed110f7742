import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Patch, Post, Query } from '@nestjs/common';
import type { Storage } from 'syncom';
import { InjectStorage } from 'syncom-nest';
import { toNoteAnswer } from './note-answer';
import { AddTagsDto, AddViewsDto, CreateNoteDto, ListNotesDto, NOTES_PAGE, RemoveTagsDto, UpdateNoteDto } from './note.dto';

const NOTE = 'Note';

/** Notes: each REST call is one storage write (or read); the storage syncs it to the hub. */
@Controller('notes')
export class NotesController {
  constructor(@InjectStorage() private readonly storage: Storage) {}

  @Post()
  async create(@Body() note: CreateNoteDto) {
    return { id: await this.storage.insert({ $type: NOTE, ...note }) };
  }

  /** A page of the records in id order, notes only: a request costs its page, not the store (the next page is `after` the last id). */
  @Get()
  async list(@Query() q: ListNotesDto) {
    // The pipe checked the query (no transform): limit is still its text here.
    const rows = await this.storage.list({ after: q.after, limit: q.limit === undefined ? NOTES_PAGE : Number(q.limit) });
    return rows.filter((r) => r.data.$type === NOTE).map((r) => toNoteAnswer(r.id, r.data));
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

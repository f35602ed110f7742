/**
 * The fields a note answer may carry: the scope field this app sets on insert,
 * and the fields its DTOs write (title and body, views as a counter, tags as a set).
 */
export const NOTE_FIELDS = ['$type', 'title', 'body', 'views', 'tags'] as const;

/** A note as the REST endpoints answer it. */
export type NoteAnswer = { id: string } & Partial<Record<(typeof NOTE_FIELDS)[number], unknown>>;

/**
 * Shapes a stored note into its answer. A record can arrive from any peer of
 * the hub with fields no DTO allowed, `id` among them: spreading its data
 * would answer that field, and a client following a foreign `id` would
 * PATCH or DELETE another note. So the answer names the record's real id and
 * picks only a note's own fields.
 *
 * @example toNoteAnswer('n1', { $type: 'Note', title: 'hi', id: 'other', admin: true }) // { id: 'n1', $type: 'Note', title: 'hi' }
 */
export function toNoteAnswer(id: string, data: Record<string, unknown>): NoteAnswer {
  const answer: NoteAnswer = { id };
  for (const field of NOTE_FIELDS) if (Object.hasOwn(data, field)) answer[field] = data[field];
  return answer;
}

// The bounds of what the note list shows: no DOM here, so the tests that run in Node read them too.

/** The most notes the list shows; a store bootstrapped from a busy hub may hold many more. */
export const SHOWN = 500;

/**
 * The most tags a note shows, and the characters of each: a peer may put
 * thousands in one note, or a tag of megabytes, and every one shown is
 * elements, a listener and attributes (the rest are counted in a line).
 */
export const SHOWN_TAGS = 50;
export const TAG_CHARS = 100;

/**
 * The most characters of a title and of a body the list shows: what the
 * form lets a user type (maxlength). A peer may write a title of megabytes,
 * which was laid out whole; the rest is counted in a line.
 */
export const TITLE_CHARS = 500;
export const BODY_CHARS = 100_000;

/**
 * What the whole list shows in full: the newest notes spend it (a title's
 * and a body's characters as shown, TAG_CHARS for each tag shown, which is
 * elements besides its text), and the notes past it show BRIEF. The bounds
 * above held each note alone, and 500 notes of 100,000 characters, or of 50
 * tags, were laid out whole: seconds of a frozen tab at each refresh.
 */
export const LIST_CHARS = 200_000;
export const BRIEF_CHARS = 200;

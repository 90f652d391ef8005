/**
 * Generated sentences as data: our own wording and values from the data kept apart, so each output
 * (Markdown, HTML, terminal) escapes only the data. Leaf module: the report's narrative and the diff's
 * "since last snapshot" lines both build them.
 */

/** One piece of a generated sentence: our own wording or a value from the data (escaped on output). */
export type SentencePart = { kind: 'text'; value: string } | { kind: 'data'; value: string };
/** A generated summary sentence. */
export type Sentence = readonly SentencePart[];

/**
 * Error envelopes (APIErrorPayload) and the validation items of 422s, worded like the service's
 * FastAPI/pydantic backend: `loc` names where the problem is, e.g. ["query","page_size"].
 */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface ErrorReply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export function envelope(
  status: number,
  type: string,
  detail: string,
  errors?: ValidationItem[],
): ErrorReply {
  const body: Record<string, unknown> = { code: status, detail, type };
  if (errors) body.errors = errors;
  return { status, body: JSON.stringify(body) };
}

export function validationError(errors: ValidationItem[]): ErrorReply {
  const where = errors.map((e) => e.loc.join('.')).join(', ');
  return envelope(422, 'validation_error', `Request validation failed: ${where}`, errors);
}

export const notFound = (detail: string): ErrorReply => envelope(404, 'not_found_error', detail);

/** Reads an integer query/body value the way pydantic does (strings of digits are accepted in queries). */
export function intIssue(
  loc: (string | number)[],
  raw: unknown,
  min: number,
  max?: number,
): ValidationItem | null {
  const fromQuery = typeof raw === 'string';
  const value = fromQuery ? (/^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : NaN) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return fromQuery
      ? {
          loc,
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
        }
      : { loc, msg: 'Input should be a valid integer', type: 'int_type' };
  }
  if (value < min)
    return { loc, msg: `Input should be greater than or equal to ${min}`, type: 'greater_than_equal' };
  if (max !== undefined && value > max)
    return { loc, msg: `Input should be less than or equal to ${max}`, type: 'less_than_equal' };
  return null;
}

export function uuidIssue(loc: (string | number)[]): ValidationItem {
  return {
    loc,
    msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-]',
    type: 'uuid_parsing',
  };
}

/** What a refused call throws: the server's `detail`, and for 422 its `problems`. */

export interface Problem {
  field: string;
  message: string;
}

/** Any answer memhive refused; `status` is the HTTP status, `body` the JSON answer. */
export class MemhiveError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly body: unknown;
  readonly problems: Problem[];

  constructor(status: number, detail: string, body: unknown) {
    super(`${status}: ${detail}`);
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
    this.body = body;
    const problems = isRecord(body) && Array.isArray(body.problems) ? body.problems : [];
    this.problems = problems.map((p: Record<string, unknown>) => ({
      field: String(p.field ?? ""),
      message: String(p.message ?? ""),
    }));
  }
}

/** 401: no token, or one memhive does not know. */
export class Unauthorized extends MemhiveError {}
/** 403: the token may not do this. */
export class Forbidden extends MemhiveError {}
/** 404: unknown, forgotten, expired, or not visible to this token. */
export class NotFound extends MemhiveError {}

/** 409: near-duplicates exist (`similar`), or a key/value entry is not at the revision
 * asked for (`currentRevision`). */
export class Conflict extends MemhiveError {
  get similar(): Array<Record<string, unknown>> {
    return isRecord(this.body) && Array.isArray(this.body.similar) ? this.body.similar : [];
  }

  get currentRevision(): number | null {
    const value = isRecord(this.body) ? this.body.current_revision : null;
    return typeof value === "number" ? value : null;
  }
}

/** 413: the request body is larger than the gateway accepts. */
export class TooLarge extends MemhiveError {}
/** 422: `problems` names each field that is wrong. */
export class InvalidRequest extends MemhiveError {}
/** 429 or 503 still, after every retry. */
export class Unavailable extends MemhiveError {}

const BY_STATUS: Record<number, typeof MemhiveError> = {
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  413: TooLarge,
  422: InvalidRequest,
  429: Unavailable,
  503: Unavailable,
};

export async function errorFor(response: Response): Promise<MemhiveError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  const detail = isRecord(body) && body.detail ? String(body.detail) : text || response.statusText;
  const Type = BY_STATUS[response.status] ?? MemhiveError;
  return new Type(response.status, detail, body);
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === "object" && value !== null;
}

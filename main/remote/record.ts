/** What a server engine records beside a request's figures (core/engine/breaks.ts EngineRecord). */
export interface ServerRequestRecord {
  /** The server's base URL. */
  url: string;
  /** The prompt tokens the server reports it took from its cache; null: it did not report them. */
  cachedTokens: number | null;
  /**
   * The first message sent before that this request sent otherwise (-1: the tools array), and the
   * byte in that message's JSON where it differs; null: every earlier message went out the same.
   */
  change: { message: number; byte: number } | null;
  /** The llama-server slot the request ran in. */
  slot?: number;
}

declare module '../core/engine/breaks.js' {
  interface EngineRecord {
    /** A server engine's own figures for the request (main/remote). */
    server?: ServerRequestRecord;
  }
}

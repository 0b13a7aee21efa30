// The one error of the API client that is not the daemon's: its own module, so the CLI can tell it
// apart (exit code 3) without loading the client and its HTTP stack, as `docfix help` must not.

/** The other end could not be reached, timed out, or did not answer as a docfix API (CLI exit code 3). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  readonly url: string;
  constructor(message: string, url: string, options?: ErrorOptions) {
    super(message, options);
    this.url = url;
  }
}

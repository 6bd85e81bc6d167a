/**
 * Server-sent events, as far as chat completions use them: `data:` fields, events
 * separated by a blank line, comments and other fields ignored.
 *
 * @module
 */

/**
 * Yields the `data` of each event in a byte stream. A final event that was not closed
 * by a blank line is still yielded (the caller decides whether the stream was cut).
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  // Decoded by hand: `pipeThrough(new TextDecoderStream())` does not type-check once
  // Node's stream types are in the program (the server's Node adapter brings them).
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) {
        buffer += decoder.decode();
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A lone "\r" at the end may be the first half of "\r\n": wait for the rest.
        if (newline === buffer.length - 1 && buffer.endsWith("\r")) break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield data.join("\n");
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        }
      }
    }
    if (buffer.endsWith("\r")) buffer = buffer.slice(0, -1);
    if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.startsWith("data: ") ? 6 : 5));
    if (data.length > 0) yield data.join("\n");
  } finally {
    // Stops the download when the consumer leaves early (after `[DONE]`, or on error).
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

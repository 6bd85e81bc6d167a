import { equal } from "node:assert/strict";
import { redactUrl } from "./redact_url.ts";

Deno.test("redactUrl: userinfo and secret-named parameters go, the rest stays", () => {
  equal(
    redactUrl("ws://bob:SECRET@127.0.0.1:9/ws?api_key=K&x=1&framing=json"),
    "ws://***@127.0.0.1:9/ws?api_key=***&x=1&framing=json",
  );
  for (
    const name of [
      "key",
      "api_key",
      "apiKey",
      "token",
      "auth_token",
      "secret",
      "password",
      "auth",
      "X-Amz-Signature",
    ]
  ) {
    equal(redactUrl(`wss://h/p?${name}=S1`), `wss://h/p?${name}=***`, name);
  }
  equal(redactUrl("wss://h/p?model=gpt&voice=alloy"), "wss://h/p?model=gpt&voice=alloy");
  equal(redactUrl("ws://user@h/ws"), "ws://***@h/ws");
  equal(redactUrl("oracle"), "oracle");
  equal(redactUrl("script:calls.yaml"), "script:calls.yaml");
});

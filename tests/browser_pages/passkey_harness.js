// Runs fw's passkey.js outside a browser, with a fake page, fetch and authenticator, and prints
// JSON describing what it did. Used by test_passkey_pages.py; argv[2] is passkey.js, argv[3] a scenario.
"use strict";
const fs = require("fs");
const vm = require("vm");

const [script, scenario] = process.argv.slice(2);
const calls = [];
const answers = JSON.parse(process.env.FW_ANSWERS || "[]");

function answer(status, body) {
  return Promise.resolve({
    ok: status >= 200 && status < 300,
    status,
    statusText: "",
    text: () => Promise.resolve(JSON.stringify(body)),
  });
}

const context = {
  console,
  URL,
  URLSearchParams,
  DOMException,
  btoa,
  atob,
  Promise,
  location: { href: "http://localhost:8000/account", search: "", assign() {}, reload() {} },
  document: {
    currentScript: { src: "http://localhost:8000/auth/passkey/passkey.js", dataset: {} },
    readyState: "complete",
    querySelectorAll: () => [],
    querySelector: () => null,
    addEventListener() {},
  },
  PublicKeyCredential: function () {},
  fetch(url, init) {
    calls.push(url.replace(/^.*\/auth\/passkey/, ""));
    const next = answers.shift();
    return answer(next[0], next[1]);
  },
  navigator: {
    credentials: {
      create: () => Promise.resolve({ toJSON: () => ({ id: "new" }) }),
      get: () => Promise.resolve({ toJSON: () => ({ id: "old" }) }),
    },
  },
};
context.window = context;
vm.createContext(context);
vm.runInContext(fs.readFileSync(script, "utf8"), context);
const fwPasskey = context.fwPasskey;

function report(result) {
  process.stdout.write(JSON.stringify({ result, calls }));
}

if (scenario === "explain") {
  const raw = "The operation either timed out or was not allowed. See: https://www.w3.org/TR/webauthn-2/";
  report({
    notAllowed: fwPasskey.explain(new DOMException(raw, "NotAllowedError")),
    invalidState: fwPasskey.explain(new DOMException(raw, "InvalidStateError")),
    unknown: fwPasskey.explain(new TypeError(raw)),
    problem: fwPasskey.explain({ status: 403, title: "Forbidden", detail: "the server's own words" }),
  });
} else {
  fwPasskey[scenario]().then(
    (value) => report({ resolved: value }),
    (error) => report({ rejected: error })
  );
}

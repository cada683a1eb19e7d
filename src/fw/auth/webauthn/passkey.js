/*
 * fw passkeys in the browser: window.fwPasskey.login(), .register() and .bootstrap(loginId, secret).
 *
 * Each runs one ceremony against the passkey endpoints (POST, JSON) and resolves with the JSON the
 * finish endpoint answers ({"landing": ...} for login, {"credential_id": ...} for registration);
 * a refused step rejects with the problem document the server sent. fwPasskey.explain(error) is the
 * sentence to show a person for any refusal (the server's detail, or fw's words for the browser's).
 *
 * Pages need no script of their own: elements marked data-fw-passkey="login" | "register" |
 * "bootstrap" (a form with login_id and secret fields) run their ceremony, and the element marked
 * data-fw-passkey-message (give it role="alert") shows the explanation of a refusal.
 *
 * login() on a page whose URL names an `operation` (the login page a zero-window guard sent the
 * browser to: ?max_age=0&next=...&operation=...) hands it to login/begin, so the re-proof is for
 * that operation; login({operation: "..."}) names one explicitly.
 *
 * The endpoints live under the directory this script is served from ({auth.passkey.path}/passkey.js);
 * a copy served elsewhere names it: <script src="/passkey.js" data-path="/auth/passkey"></script>.
 *
 * Binary values travel as unpadded Base64url, as WebAuthn Level 3 toJSON() writes them; browsers
 * without parseCreationOptionsFromJSON / parseRequestOptionsFromJSON / toJSON get a small fallback.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var base = script && script.dataset.path
    ? script.dataset.path
    : new URL(script ? script.src : "/auth/passkey/passkey.js", location.href).pathname.replace(/\/[^/]*$/, "");

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64url(value) {
    var text = atob(value.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((value.length + 3) % 4));
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes.buffer;
  }

  function withIds(list) {
    return (list || []).map(function (descriptor) {
      return Object.assign({}, descriptor, { id: fromBase64url(descriptor.id) });
    });
  }

  function creationOptions(json) {
    if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    return Object.assign({}, json, {
      challenge: fromBase64url(json.challenge),
      user: Object.assign({}, json.user, { id: fromBase64url(json.user.id) }),
      excludeCredentials: withIds(json.excludeCredentials),
    });
  }

  function requestOptions(json) {
    if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    var options = Object.assign({}, json, { challenge: fromBase64url(json.challenge) });
    if (json.allowCredentials) options.allowCredentials = withIds(json.allowCredentials);
    return options;
  }

  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") return credential.toJSON();
    var response = credential.response;
    var json = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: { clientDataJSON: toBase64url(response.clientDataJSON) },
    };
    if (response.attestationObject) {
      json.response.attestationObject = toBase64url(response.attestationObject);
      json.response.transports = typeof response.getTransports === "function" ? response.getTransports() : [];
    } else {
      json.response.authenticatorData = toBase64url(response.authenticatorData);
      json.response.signature = toBase64url(response.signature);
      json.response.userHandle = response.userHandle ? toBase64url(response.userHandle) : null;
    }
    return json;
  }

  function post(suffix, body) {
    return fetch(base + suffix, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body === undefined ? {} : body),
    }).then(function (answer) {
      return answer.text().then(function (text) {
        var parsed = null;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch (ignored) {
          parsed = null;
        }
        if (answer.ok) return parsed;
        throw parsed && typeof parsed === "object"
          ? parsed
          : { type: "about:blank", title: answer.statusText, status: answer.status };
      });
    });
  }

  // One ceremony: ask `begin` for options, let navigator.credentials[method] answer, post it to `finish`.
  function ceremony(name, toOptions, method, query) {
    return post("/" + name + "/begin" + (query || ""))
      .then(function (options) {
        return navigator.credentials[method]({ publicKey: toOptions(options) });
      })
      .then(function (credential) {
        return post("/" + name + "/finish", credentialJSON(credential));
      });
  }

  function login(options) {
    var page = new URLSearchParams(location.search);
    var operation = (options && options.operation) || page.get("operation");
    var params = new URLSearchParams();
    if (operation) params.set("operation", operation);
    if (page.get("next")) params.set("next", page.get("next"));
    var query = params.toString() ? "?" + params.toString() : "";
    return ceremony("login", requestOptions, "get", query);
  }

  // Adding a passkey while signed in needs a recent proof: a session older than that proves
  // itself with a passkey it already has (a re-proof, no new sign-in), then registers.
  function register() {
    return ceremony("register", creationOptions, "create").catch(function (error) {
      if (!error || error.code !== "reauthentication_required") throw error;
      return ceremony("login", requestOptions, "get").then(function () {
        return ceremony("register", creationOptions, "create");
      });
    });
  }

  function bootstrap(loginId, secret) {
    return post("/bootstrap", { login_id: loginId, secret: secret }).then(register);
  }

  // What a person reads when a step is refused: the server's own words for a problem document,
  // fw's words for the browser's refusals (never the browser's exception text).
  var BROWSER_REFUSALS = {
    NotAllowedError: "The passkey request was cancelled or timed out. Try again when you are ready.",
    AbortError: "The passkey request was cancelled. Try again when you are ready.",
    InvalidStateError: "This device already holds a passkey for this account. Use another device or security key.",
    SecurityError: "This page's address may not use passkeys. Open the site at the address it is configured for.",
    NotSupportedError: "This browser or device cannot use passkeys here.",
  };

  function explain(error) {
    if (typeof PublicKeyCredential === "undefined") return BROWSER_REFUSALS.NotSupportedError;
    if (error && typeof error === "object" && typeof error.status === "number") {
      var words = error.detail || error.title || "The request was refused.";
      return words.charAt(0).toUpperCase() + words.slice(1) + (/[.!?]$/.test(words) ? "" : ".");
    }
    if (error && BROWSER_REFUSALS[error.name]) return BROWSER_REFUSALS[error.name];
    return "The passkey step did not complete. Try again.";
  }

  // A page's elements marked data-fw-passkey="login" | "register" | "bootstrap" (a form with
  // login_id and secret fields) run their ceremony; the element marked data-fw-passkey-message
  // (role="alert") shows fw's message when one is refused.
  function say(error) {
    var target = document.querySelector("[data-fw-passkey-message]");
    if (target) target.textContent = explain(error);
  }

  function clear() {
    var target = document.querySelector("[data-fw-passkey-message]");
    if (target) target.textContent = "";
  }

  function wire() {
    document.querySelectorAll("[data-fw-passkey]").forEach(function (element) {
      var kind = element.dataset.fwPasskey;
      var event = element.tagName === "FORM" ? "submit" : "click";
      element.addEventListener(event, function (e) {
        e.preventDefault();
        clear();
        var run;
        if (kind === "login") {
          run = login().then(function (done) { location.assign(done.landing); });
        } else if (kind === "register") {
          run = register().then(function () { location.reload(); });
        } else if (kind === "bootstrap") {
          run = bootstrap(element.elements.login_id.value, element.elements.secret.value).then(function () {
            location.assign(element.dataset.fwNext || "/");
          });
        } else {
          return;
        }
        run.catch(say);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();

  window.fwPasskey = { login: login, register: register, bootstrap: bootstrap, explain: explain, path: base };
})();

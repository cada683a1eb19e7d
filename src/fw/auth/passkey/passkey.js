/*
 * fw passkeys in the browser: window.fwPasskey.login(), .register() and .bootstrap(loginId, secret).
 *
 * Each runs one ceremony against the passkey endpoints (POST, JSON) and resolves with the JSON the
 * finish endpoint answers ({"landing": ...} for login, {"credential_id": ...} for registration);
 * a refused step rejects with the problem document the server sent.
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

  function register() {
    return ceremony("register", creationOptions, "create");
  }

  function login(options) {
    var operation = (options && options.operation) || new URLSearchParams(location.search).get("operation");
    var query = operation ? "?operation=" + encodeURIComponent(operation) : "";
    return ceremony("login", requestOptions, "get", query);
  }

  function bootstrap(loginId, secret) {
    return post("/bootstrap", { login_id: loginId, secret: secret }).then(register);
  }

  window.fwPasskey = { login: login, register: register, bootstrap: bootstrap, path: base };
})();

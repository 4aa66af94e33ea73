// The console's shell: the pages, and who requests run as.
import { api } from './api.js';
import { Explorer } from './explorer.js';
import { DataPage } from './data.js';
import { RequestsPage } from './requests.js';
import { LivePage } from './live.js';
import { UsersPage } from './users.js';
import { FunctionsPage } from './functions.js';
import { DevicesPage } from './devices.js';

const select = document.getElementById('identity');
let identities = [];

const tokenInput = document.getElementById('identity-token');
const claimsInput = document.getElementById('identity-claims');

/** The claims typed for the local OIDC provider: an object, or the text as typed when it is not
 *  JSON, which the server refuses with the fix. */
function typedClaims() {
  const text = claimsInput.value.trim() || '{}';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The identity chosen in "Run as", with the token or the claims typed beside it when it takes
 *  them. */
export function currentIdentity() {
  const identity = identities[select.selectedIndex] ?? { type: 'API_KEY' };
  if (identity.needsToken) return { ...identity, token: tokenInput.value.trim() };
  if (identity.needsClaims) return { ...identity, claims: typedClaims() };
  return identity;
}

/** Selects `wanted` (an identity the history kept) in "Run as"; false when it is not listed. */
function chooseIdentity(wanted) {
  const { token, claims, ...listed } = wanted;
  const index = identities.findIndex((identity) => JSON.stringify(identity) === JSON.stringify(listed));
  if (index < 0) return false;
  select.selectedIndex = index;
  // The history keeps no token: the one typed stays.
  if (identities[index].needsToken && token) tokenInput.value = token;
  if (identities[index].needsClaims && claims) claimsInput.value = JSON.stringify(claims);
  showTypedCredentials();
  return true;
}

/** Shows the token field when the chosen identity takes a token (OIDC, Lambda authorizer), and
 *  the claims field when it takes claims (the local OIDC provider). */
function showTypedCredentials() {
  const identity = identities[select.selectedIndex];
  tokenInput.hidden = !identity?.needsToken;
  tokenInput.placeholder = identity?.needsToken ? 'Token' : '';
  tokenInput.title = identity?.tokenHint ?? '';
  claimsInput.hidden = !identity?.needsClaims;
  claimsInput.title = identity?.claimsHint ?? '';
}
select.addEventListener('change', showTypedCredentials);

async function loadIdentities() {
  const { identities: found } = await api('identities');
  identities = found;
  select.replaceChildren(...found.map((identity) => {
    const option = new Option(identity.label);
    // A mode the API accepts but the console cannot run as: why, and the fix.
    if (identity.unavailable) {
      option.disabled = true;
      option.title = identity.unavailable;
    }
    return option;
  }));
  showTypedCredentials();
}

/** Opens a request of the Requests page in the Explorer, as the identity it ran as when the
 *  console knows it. */
function replay(record) {
  const index = identities.findIndex((identity) =>
    identity.type === record.authorizationMode
    && (identity.type !== 'AMAZON_COGNITO_USER_POOLS' || identity.username === record.identity));
  if (index >= 0) select.selectedIndex = index;
  pages.explorer.load(record.query, record.variables ?? {});
  location.hash = '#explorer';
}

const pages = {
  explorer: new Explorer(currentIdentity, chooseIdentity),
  data: new DataPage(currentIdentity),
  live: new LivePage(),
  requests: new RequestsPage(replay),
  users: new UsersPage(() => loadIdentities()),
  functions: new FunctionsPage(),
  devices: new DevicesPage(),
};

function show() {
  const name = location.hash.slice(1) in pages ? location.hash.slice(1) : 'explorer';
  for (const key of Object.keys(pages)) {
    document.getElementById(`page-${key}`).hidden = key !== name;
    const link = document.querySelector(`[data-page="${key}"]`);
    if (key === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  pages[name].shown();
}

window.addEventListener('hashchange', show);
await loadIdentities();
show();
document.body.dataset.ready = 'true';

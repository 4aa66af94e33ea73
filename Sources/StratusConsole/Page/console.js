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

/** The identity chosen in "Run as". */
export function currentIdentity() {
  return identities[select.selectedIndex] ?? { type: 'API_KEY' };
}

async function loadIdentities() {
  const { identities: found } = await api('identities');
  identities = found;
  select.replaceChildren(...found.map((identity) => new Option(identity.label)));
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
  explorer: new Explorer(currentIdentity),
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

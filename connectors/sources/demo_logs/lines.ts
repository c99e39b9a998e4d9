/** Fake log lines in the formats of the demo_logs source; deterministic for a given random(). */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH', 'OPTIONS'];
const PATHS = ['/', '/index.html', '/api/v1/users', '/login', '/static/app.js', '/healthz', '/orders/42', '/search?q=weir'];
const STATUSES = [200, 200, 200, 201, 204, 301, 302, 400, 401, 403, 404, 500, 502, 503];
const USERS = ['-', 'alice', 'bob', 'carol', 'dave', 'erin'];
const APPS = ['nginx', 'sshd', 'cron', 'kernel', 'systemd', 'postfix', 'weir'];
const HOSTS = ['web-1', 'web-2', 'db-1', 'cache-1', 'edge-3'];
const ERRORS = ['client denied by server configuration', 'File does not exist', 'script not found or unable to stat', 'Invalid method in request', 'SSL handshake failed'];
const LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export type DemoFormat = 'shuffle' | 'apache_common' | 'apache_error' | 'syslog' | 'bsd_syslog' | 'json';

/** Makes one line of the given format at time `now`. */
export function demoLine(format: Exclude<DemoFormat, 'shuffle'>, now: Date, random: () => number): string {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)]!;
  const ip = `${1 + Math.floor(random() * 254)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`;
  const d = now;
  switch (format) {
    case 'apache_common':
      return `${ip} - ${pick(USERS)} [${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000] "${pick(METHODS)} ${pick(PATHS)} HTTP/1.1" ${pick(STATUSES)} ${Math.floor(random() * 50000)}`;
    case 'apache_error':
      return `[${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}] [${pick(LEVELS)}] [pid ${1000 + Math.floor(random() * 9000)}] [client ${ip}:${1024 + Math.floor(random() * 60000)}] ${pick(ERRORS)}`;
    case 'syslog':
      return `<${Math.floor(random() * 191)}>1 ${d.toISOString()} ${pick(HOSTS)} ${pick(APPS)} ${Math.floor(random() * 9999)} ID${Math.floor(random() * 999)} - ${pick(ERRORS)}`;
    case 'bsd_syslog':
      return `<${Math.floor(random() * 191)}>${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${pick(HOSTS)} ${pick(APPS)}[${Math.floor(random() * 9999)}]: ${pick(ERRORS)}`;
    case 'json':
      return JSON.stringify({
        host: ip,
        'user-identifier': pick(USERS),
        datetime: `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
        method: pick(METHODS),
        request: pick(PATHS),
        protocol: 'HTTP/1.1',
        status: String(pick(STATUSES)),
        bytes: Math.floor(random() * 50000),
        referer: `https://${pick(HOSTS)}.example.com/`,
      });
  }
}

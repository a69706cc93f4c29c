import { request } from 'node:http';

export interface SocketAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | undefined;
}

/** One HTTP request over the daemon's unix socket, as the shim's Go client sends it (host "dummy"). */
export function socketRequest(
  socketPath: string,
  method: string,
  path: string,
  body?: string | Buffer,
  contentType = 'application/json',
): Promise<SocketAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': contentType };
    const req = request({ socketPath, method, path, host: 'dummy', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), contentType: res.headers['content-type'] });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// The Prometheus text exposition format, as kube-apiserver and etcd serve /metrics: each sample's name,
// labels and value. Comments, HELP and TYPE lines carry nothing the fleet figures read.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1] ?? ''] = (label[2] ?? '').replaceAll('\\"', '"').replaceAll('\\\\', '\\');
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `where`. */
export function sumOf(samples: readonly Sample[], name: string, where: Readonly<Record<string, string>> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** A small parser of the Prometheus text format 0.0.4, enough to check what Junction renders. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  helps: Map<string, string>;
  samples: Sample[];
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (text[eq + 1] !== '"') throw new Error(`label ${name} is not quoted in ${text}`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j += 1) {
      if (text[j] === '\\') {
        const next = text[j + 1];
        value += next === 'n' ? '\n' : next;
        j += 1;
      } else {
        value += text[j];
      }
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i += 1;
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Parses the exposition; throws on a line it does not understand. */
export function parseExposition(text: string): Exposition {
  const result: Exposition = { types: new Map(), helps: new Map(), samples: [] };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let match = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (match) {
      result.types.set(match[1] as string, match[2] as string);
      continue;
    }
    match = /^# HELP (\S+) (.*)$/.exec(line);
    if (match) {
      result.helps.set(match[1] as string, match[2] as string);
      continue;
    }
    match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`unparseable line: ${line}`);
    result.samples.push({
      name: match[1] as string,
      labels: match[2] === undefined ? {} : parseLabels(match[2]),
      value: parseValue(match[3] as string),
    });
  }
  return result;
}

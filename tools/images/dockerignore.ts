// The build context as a build sees it: the paths .dockerignore excludes, by its rules (one pattern a line,
// `#` comments, paths relative to the context root with or without a leading `/`, `*` and `?` within one path
// element, `**` across any number of them, `!` re-including what an earlier line excluded; the last line that
// matches a path or one of its parent directories decides).
import fs from 'node:fs';
import path from 'node:path';

interface Rule {
  readonly pattern: RegExp;
  readonly exclude: boolean;
}

/** A pattern as a regular expression, as the build reads it: `**` followed by `/` matches no directory too. */
function patternSource(glob: string): string {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] ?? '';
    if (char === '*' && glob[index + 1] === '*') {
      index++;
      if (glob[index + 1] === '/') {
        source += '(?:.*/)?';
        index++;
      } else source += '.*';
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = glob.indexOf(']', index + 1);
      if (end === -1) throw new Error(`.dockerignore pattern ${JSON.stringify(glob)}: "[" without "]"`);
      const body = glob.slice(index + 1, end);
      source += `[${body.startsWith('!') || body.startsWith('^') ? `^${body.slice(1)}` : body}]`;
      index = end;
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return source;
}

function rule(line: string): Rule {
  const exclude = !line.startsWith('!');
  const cleaned = path.posix.normalize((exclude ? line : line.slice(1)).trim()).replace(/^\/+|\/+$/g, '');
  return { pattern: new RegExp(`^${patternSource(cleaned)}$`), exclude };
}

/** The rules of a .dockerignore text; `excluded` tells whether a context-relative path stays out. */
export function parseDockerignore(text: string): { excluded(relativePath: string): boolean } {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(rule);
  return {
    excluded(relativePath: string): boolean {
      const elements = path.posix.normalize(relativePath).split('/');
      const candidates = elements.map((_element, index) => elements.slice(0, index + 1).join('/'));
      let excluded = false;
      for (const { pattern, exclude } of rules) if (candidates.some((candidate) => pattern.test(candidate))) excluded = exclude;
      return excluded;
    },
  };
}

/** The context directory's rules: its .dockerignore's, or none. */
export function contextRules(context: string): { excluded(relativePath: string): boolean } {
  const file = path.join(context, '.dockerignore');
  return parseDockerignore(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
}

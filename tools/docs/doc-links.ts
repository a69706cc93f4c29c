// Relative links of the documentation: the file they name must exist, and a `#fragment` into a Markdown page
// must name one of its headings as GitHub renders anchors. Pure: the caller reads the files.

export interface LinkProblem {
  readonly file: string;
  readonly target: string;
  readonly problem: string;
}

/** Markdown text without fenced blocks, where neither a link nor a heading is one. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\2[^\n]*$/gm, '');
}

/** Markdown text without fenced blocks and inline code, where a link is not a link. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** Targets of `[text](target)` and `![alt](target)` links, titles dropped. */
export function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${String(count)}`);
  }
  return anchors;
}

export interface LinkWorkspace {
  /** Repository-relative path exists. */
  exists(relative: string): boolean;
  /** Text of a repository-relative Markdown file. */
  read(relative: string): string;
  /** Resolves a link target against the linking file's directory; undefined when it leaves the repository. */
  resolve(from: string, target: string): string | undefined;
}

export function checkLinks(file: string, markdown: string, workspace: LinkWorkspace): LinkProblem[] {
  const problems: LinkProblem[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [pathPart = '', fragment] = target.split('#', 2);
    if (pathPart === '') {
      if (fragment !== undefined && !headingAnchors(markdown).has(fragment)) problems.push({ file, target, problem: `no heading #${fragment} in ${file}` });
      continue;
    }
    const resolved = workspace.resolve(file, decodeURIComponent(pathPart));
    if (resolved === undefined || !workspace.exists(resolved)) {
      problems.push({ file, target, problem: `no file ${resolved ?? pathPart}` });
      continue;
    }
    if (fragment !== undefined && resolved.endsWith('.md') && !headingAnchors(workspace.read(resolved)).has(fragment)) {
      problems.push({ file, target, problem: `no heading #${fragment} in ${resolved}` });
    }
  }
  return problems;
}

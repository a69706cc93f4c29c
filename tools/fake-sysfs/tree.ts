import fs from 'node:fs';
import path from 'node:path';

/**
 * Synchronous edits of a fake sysfs tree, by root-relative path. Synchronous on purpose: the kernel
 * emulator applies a whole bind or unbind inside one event-loop callback, so no other code in the process
 * can observe a half-applied change.
 */
export class FakeTree {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  path(relative: string): string {
    return path.join(this.root, relative);
  }

  file(relative: string, content: string): void {
    fs.mkdirSync(path.dirname(this.path(relative)), { recursive: true });
    fs.writeFileSync(this.path(relative), content);
  }

  dir(relative: string): void {
    fs.mkdirSync(this.path(relative), { recursive: true });
  }

  /** A relative symlink, as the kernel makes them, so the tree can be moved or copied whole. */
  link(relative: string, targetRelative: string): void {
    const at = this.path(relative);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.rmSync(at, { force: true });
    fs.symlinkSync(path.relative(path.dirname(at), this.path(targetRelative)), at);
  }

  remove(relative: string): void {
    fs.rmSync(this.path(relative), { recursive: true, force: true });
  }

  exists(relative: string): boolean {
    try {
      fs.lstatSync(this.path(relative));
      return true;
    } catch {
      return false;
    }
  }

  read(relative: string): string | undefined {
    try {
      return fs.readFileSync(this.path(relative), 'utf8');
    } catch {
      return undefined;
    }
  }

  list(relative: string): string[] {
    try {
      return fs.readdirSync(this.path(relative)).sort();
    } catch {
      return [];
    }
  }

  /** The root-relative path a link resolves to, or undefined when it is absent or dangling. */
  resolve(relative: string): string | undefined {
    try {
      return path.relative(fs.realpathSync(this.root), fs.realpathSync(this.path(relative)));
    } catch {
      return undefined;
    }
  }
}

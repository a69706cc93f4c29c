/** The Node.js major version the apps are written for: the `node` package the root package.json pins. */
export declare const REQUIRED_NODE_MAJOR: number;

/** Starts `<package>/dist/<entry>.js`, or `<package>/src/<entry>.ts` while nothing is built (launch.js). */
export declare function launch(launcher: string, entry: string, name: string): void;

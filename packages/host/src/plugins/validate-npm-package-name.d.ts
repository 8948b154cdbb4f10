// validate-npm-package-name 5 ships no types; this is the part cordon calls (its lib/index.js).
declare module 'validate-npm-package-name' {
  /** What npm says of a package name: usable for a new package only without errors and warnings. */
  interface NameValidity {
    readonly validForNewPackages: boolean;
    readonly validForOldPackages: boolean;
    /** Why the name is refused outright (`name can only contain URL-friendly characters`). */
    readonly errors?: readonly string[];
    /** What old packages could still do (`name can no longer contain capital letters`). */
    readonly warnings?: readonly string[];
  }
  function validate(name: string): NameValidity;
  export default validate;
}

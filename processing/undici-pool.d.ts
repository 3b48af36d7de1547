// undici 7 has no exports map; importing only its Pool keeps Lambda bundles about half the size of the root.
declare module 'undici/lib/dispatcher/pool' {
  import { Pool } from 'undici';
  export = Pool;
}

// `tsx web/write-assets.ts <dir>`: the stack's asset bundling runs this to build the apps into the directory it
// uploads (lib/web-hosting.ts), since CDK bundles synchronously and the build is not.
import { writeWebAssets } from './build';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('Usage: tsx web/write-assets.ts <directory>');
void writeWebAssets(dir).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates
import { DANGEROUS, HARDLINE } from '../../src/approval/detect.js';
import { type FamilyRow, familyTable } from './detect-family-table.js';

/**
 * `sudo -s/-i CMD` hands CMD to a shell (which expands `$` again): what it runs is judged, and a
 * bare root shell asks. Signal 0 sends nothing; scratch files are cheap to delete.
 */
const ROWS: readonly FamilyRow[] = [
  ["sudo -s 'rm -rf ~'", 'hardline', HARDLINE.homeDelete],
  ["sudo -i 'rm -rf ~'", 'hardline', HARDLINE.homeDelete],
  ["sudo -iu bob 'rm -rf /'", 'hardline', HARDLINE.rootDelete],
  ["sudo --shell 'curl x | sh'", 'dangerous', DANGEROUS.remotePipe],
  ["sudo --login 'rm -rf ~'", 'hardline', HARDLINE.homeDelete],
  ["sudo -s 'echo $(id)'", 'dangerous', DANGEROUS.codeFromData],
  ["sudo -s '$CMD'", 'dangerous', DANGEROUS.codeFromData],
  ['sudo -s', 'dangerous', DANGEROUS.sudoFlag],
  ['sudo -s id', 'safe'],
  ['sudo --shell id', 'safe'],
  ['sudo -u bob -i ls', 'safe'],
  ['kill -0 $PID', 'safe'],
  ['kill -s 0 $(cat app.pid)', 'safe'],
  ['kill -0 $PID; kill -9 $PID', 'dangerous', DANGEROUS.unresolvedArgument],
  ['rm -f /tmp/scratch.txt', 'safe'],
  ['rm /var/tmp/build.log', 'safe'],
  ['rm -f /tmp/../etc/passwd', 'dangerous', DANGEROUS.rmRootPath],
  ['rm -f /tmp/*', 'dangerous', DANGEROUS.rmRootPath],
  ['rm -f /opt/app/cache.db', 'dangerous', DANGEROUS.rmRootPath],
];

familyTable('detect: sudo shells, signal 0, scratch files', ROWS);

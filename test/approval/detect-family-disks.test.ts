import { DANGEROUS, HARDLINE } from '../../src/approval/detect.js';
import { type FamilyRow, familyTable } from './detect-family-table.js';

/** Raw-disk writes by any program (issue 18), formatters, partition tables, volumes (issue 19). */
const COPY = HARDLINE.deviceCopy;

const RAW_DISK_WRITES: readonly FamilyRow[] = [
  ['cp /dev/zero /dev/vda', 'hardline', COPY],
  ['cp disk.img /dev/sdb', 'hardline', COPY],
  ['sudo cp ubuntu.iso /dev/nvme0n1', 'hardline', COPY],
  ['cat disk.img | tee /dev/xvda', 'hardline', COPY],
  ['yes | tee /dev/sda > /dev/null', 'hardline', COPY],
  ['install -m 644 img /dev/mmcblk0', 'hardline', COPY],
  ['cat /dev/urandom > /dev/sda', 'hardline', HARDLINE.redirectDevice],
  ['pv disk.img > /dev/sdb', 'hardline', HARDLINE.redirectDevice],
  ['xz -dc img.xz > /dev/disk/by-id/usb-stick', 'hardline', HARDLINE.redirectDevice],
  ['ddrescue rescue.img /dev/sdc', 'hardline', COPY],
  ['bmaptool copy img.wic /dev/sdb', 'hardline', COPY],
  ['dcfldd if=img of=/dev/sdb', 'hardline', COPY],
  ['rsync disk.img /dev/vdb', 'hardline', COPY],
  ['mv disk.img /dev/sdb', 'hardline', COPY],
  ['cp img /dev/mapper/vg-root', 'hardline', COPY],
  ['sort -o /dev/sda list', 'hardline', COPY],
  ['cp x /dev/md0', 'hardline', COPY],
  ['cp /dev/zero /dev/loop0', 'hardline', COPY],
];

const DISKS: readonly FamilyRow[] = [
  ['mkdosfs -F 32 /dev/sdb1', 'hardline', HARDLINE.mkfs],
  ['mkfs.vfat /dev/sdb1', 'hardline', HARDLINE.mkfs],
  ['/sbin/mkfs.ext4 -F /dev/vdb', 'hardline', HARDLINE.mkfs],
  ['mkntfs -f /dev/sdc1', 'hardline', HARDLINE.mkfs],
  ['mkexfatfs /dev/sdd1', 'hardline', HARDLINE.mkfs],
  ['zpool create -f tank /dev/sdb', 'hardline', HARDLINE.mkfs],
  ['parted /dev/sda mklabel gpt', 'hardline', HARDLINE.wipeDevice],
  ['parted -s /dev/nvme0n1 mktable msdos', 'hardline', HARDLINE.wipeDevice],
  ['parted /dev/sda rm 1', 'dangerous', DANGEROUS.partition],
  ['parted -s /dev/sdb mkpart primary ext4 0% 100%', 'dangerous', DANGEROUS.partition],
  ['sfdisk --delete /dev/sda 2', 'dangerous', DANGEROUS.partition],
  ['sfdisk /dev/sda < layout.txt', 'dangerous', DANGEROUS.partition],
  ['echo w | fdisk /dev/sda', 'dangerous', DANGEROUS.partition],
  ['sgdisk -d 1 /dev/sda', 'dangerous', DANGEROUS.partition],
  ['cryptsetup luksFormat /dev/sdb', 'hardline', HARDLINE.luks],
  ['cryptsetup erase /dev/sdb2', 'hardline', HARDLINE.luks],
  ['badblocks -wsv /dev/sdb', 'hardline', HARDLINE.wipeDevice],
  ['nvme format /dev/nvme0n1', 'hardline', HARDLINE.wipeDevice],
  ['nvme sanitize -a 2 /dev/nvme0', 'hardline', HARDLINE.wipeDevice],
  ['hdparm --security-erase pass /dev/sda', 'hardline', HARDLINE.wipeDevice],
  ['mdadm --zero-superblock /dev/sdb1', 'hardline', HARDLINE.wipeDevice],
  ['sg_format --format /dev/sg1', 'hardline', HARDLINE.wipeDevice],
  ['zpool destroy tank', 'dangerous', DANGEROUS.volumeRemove],
  ['zfs destroy -r tank/data', 'dangerous', DANGEROUS.volumeRemove],
  ['lvremove -f vg0/data', 'dangerous', DANGEROUS.volumeRemove],
  ['vgremove vg0', 'dangerous', DANGEROUS.volumeRemove],
  ['pvremove /dev/sdb1', 'dangerous', DANGEROUS.volumeRemove],
  ['lvreduce -L 1G vg0/root', 'dangerous', DANGEROUS.volumeRemove],
  // Inspection stays safe
  ['fdisk -l', 'safe'],
  ['fdisk -l /dev/sda', 'safe'],
  ['sfdisk -d /dev/sda', 'safe'],
  ['parted -l', 'safe'],
  ['parted /dev/sda print', 'safe'],
  ['lsblk -f', 'safe'],
  ['zpool status', 'safe'],
  ['zfs list', 'safe'],
  ['lvs', 'safe'],
  ['cryptsetup status cryptroot', 'safe'],
  ['badblocks -sv /dev/sdb', 'safe'],
  ['cp disk.img /tmp/disk-copy.img', 'safe'],
  ['tee /dev/null < log.txt', 'safe'],
  ['cat notes.txt > /dev/stdout', 'safe'],
];

familyTable('raw-disk writes by any program (issue 18)', RAW_DISK_WRITES);
familyTable('disks and volumes', DISKS);

// The file system of a benchmark path, from /proc/self/mountinfo text; the path kinds.
#include <gtest/gtest.h>

#include "iobench/file_system.hpp"
#include "iobench/path_kind.hpp"

namespace wave3d {
namespace {

const char* kMountinfo =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684096k,mpol=interleave\n"
    "40 27 0:50 / /scratch rw master:3 - lustre 10.0.0.1@o2ib:/fs rw,flock\n"
    "41 27 0:51 / /my\\040data rw - xfs /dev/sdb rw\n"
    "42 27 0:52 / /scratch/ram rw - ramfs none rw\n";

TEST(FileSystem, ParsesMountinfoWithOptionalFieldsAndEscapes) {
  const auto mounts = parse_mountinfo(kMountinfo);
  ASSERT_EQ(mounts.size(), 6u);
  EXPECT_EQ(mounts[1].mount_point, "/");
  EXPECT_EQ(mounts[1].type, "ext4");
  EXPECT_EQ(mounts[3].type, "lustre");
  EXPECT_EQ(mounts[3].source, "10.0.0.1@o2ib:/fs");
  EXPECT_EQ(mounts[4].mount_point, "/my data");
  EXPECT_EQ(mounts[2].super_options, "rw,size=24684096k,mpol=interleave");
}

TEST(FileSystem, TheLongestWholeComponentPrefixWins) {
  const auto mounts = parse_mountinfo(kMountinfo);
  EXPECT_EQ(mount_of(mounts, "/dev/shm")->type, "tmpfs");
  EXPECT_EQ(mount_of(mounts, "/dev/shm/x/y")->type, "tmpfs");
  EXPECT_EQ(mount_of(mounts, "/dev/shmx")->type, "ext4") << "/dev/shm is not a prefix of /dev/shmx";
  EXPECT_EQ(mount_of(mounts, "/scratch/run1")->type, "lustre");
  EXPECT_EQ(mount_of(mounts, "/scratch/ram/f")->type, "ramfs");
  EXPECT_EQ(mount_of(mounts, "/my data/f")->type, "xfs");
  EXPECT_FALSE(mount_of({}, "/x"));
  EXPECT_TRUE(is_memory_file_system("tmpfs"));
  EXPECT_TRUE(is_memory_file_system("ramfs"));
  EXPECT_FALSE(is_memory_file_system("lustre"));
}

TEST(FileSystem, DescribesThisMachinesTempDirectoryAndRefusesMissingOnes) {
  const FileSystemInfo info = describe_file_system("/tmp");
  ASSERT_TRUE(info.mount.has_value());
  EXPECT_FALSE(info.mount->type.empty());
  EXPECT_TRUE(info.free_bytes.has_value());
  EXPECT_THROW(describe_file_system("/no/such/directory"), std::runtime_error);
}

TEST(PathKind, EveryCombinationOfThreeNodes) {
  EXPECT_EQ(classify_path(0, 0, 0), PathKind::local);
  EXPECT_EQ(classify_path(1, 0, 0), PathKind::pull);
  EXPECT_EQ(classify_path(0, 0, 1), PathKind::push);
  EXPECT_EQ(classify_path(1, 0, 2), PathKind::relay);
  EXPECT_EQ(classify_path(1, 0, 1), PathKind::round_trip);
  EXPECT_EQ(to_string(PathKind::round_trip), "round-trip");
}

TEST(PathKind, KindsThatExistOnOneTwoAndFourNodes) {
  using K = PathKind;
  EXPECT_EQ(path_kinds_between({0}), (std::vector<K>{K::local}));
  EXPECT_EQ(path_kinds_between({0, 1}), (std::vector<K>{K::local, K::pull, K::push, K::round_trip}));
  EXPECT_EQ(path_kinds_between({0, 1, 2, 3}), (std::vector<K>{K::local, K::pull, K::push, K::relay, K::round_trip}));
  EXPECT_TRUE(path_kinds_between({}).empty());
}

}  // namespace
}  // namespace wave3d

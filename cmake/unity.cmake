# Unity builds (-DCMAKE_UNITY_BUILD=ON, the Makefile's default): each unity group of up to
# VIREO_UNITY_GROUP_SIZE sources compiles as one translation unit, so the headers every file
# includes (the standard library, GoogleTest, the store) are parsed and their templates
# instantiated once per group instead of once per file: about half the compile time.
# scripts/arm-check.sh builds this way.
#
# A group is one translation unit, so two files that define the same name in an unnamed
# namespace (say NextRandom or kWrongType) must not share one. Each line below names such a
# name and the files defining it; vireo_unity_groups() never puts two files of one line in the
# same group. A missing line shows up in unity builds only, as a "redefinition of" or "is
# ambiguous" error in a Unity/unity_<target>_<n>_cxx.cxx object: add the name and its files.
set(VIREO_UNITY_CLASHES
    "AllDbs src/persistence/aof_rewrite.cc src/persistence/snapshot.cc"
    "AppendBulk src/server/pubsub.cc src/server/tracking.cc"
    "CheckString src/commands/bitmap_commands.cc src/commands/string_commands.cc"
    "Encode src/store/listpack.cc src/store/pair_pack.cc"
    "FindForWrite src/commands/bitmap_commands.cc src/commands/hyperloglog_commands.cc src/commands/list_commands.cc src/commands/set_commands.cc src/commands/string_commands.cc"
    "IsDigit src/common/numbers.cc src/scripting/lua_pattern.cc src/scripting/lua_struct.cc"
    "IsSpace src/common/numbers.cc src/scripting/lua_pattern.cc"
    "Line src/commands/info_command.cc src/replication/replication_info.cc"
    "LoadAt src/store/intset.cc src/store/set_intset.cc"
    "LoadLE src/persistence/rdb_packed.cc src/persistence/rdb_reader.cc"
    "LoadU32 src/store/intset.cc src/store/listpack.cc src/store/quicklist.cc"
    "LookupCommand src/acl/selector.cc src/commands/latency_commands.cc"
    "Move src/commands/list_commands.cc src/common/geohash.cc"
    "NextRandom src/store/set_sample.cc src/store/set_value.cc"
    "NodeLess src/commands/zset_setop_commands.cc src/store/zset_value.cc"
    "Pack src/scripting/lua_cmsgpack.cc src/scripting/lua_struct.cc"
    "ParseIndex src/commands/bitmap_commands.cc src/commands/list_commands.cc"
    "ParseTimeout src/commands/list_commands.cc src/commands/zset_pop_commands.cc"
    "ParseUnit src/commands/bitmap_commands.cc src/commands/geo_commands.cc"
    "RangeGeneric src/commands/stream_commands.cc src/commands/zset_range_commands.cc"
    "ReplyInvalidExpire src/commands/expire_commands.cc src/commands/hash_expire_commands.cc src/commands/string_commands.cc"
    "ReplySubcommandSyntax src/commands/stream_group_commands.cc src/commands/stream_info_command.cc"
    "Search src/store/intset.cc src/store/set_intset.cc"
    "SetOp src/commands/set_commands.cc src/commands/zset_setop_commands.cc"
    "Splice src/store/listpack.cc src/store/pair_pack.cc"
    "StoreAt src/store/intset.cc src/store/set_intset.cc"
    "StoreResult src/commands/set_commands.cc src/commands/zset_range_commands.cc"
    "StoreU32 src/store/intset.cc src/store/listpack.cc src/store/quicklist.cc"
    "Unpack src/scripting/lua_cmsgpack.cc src/scripting/lua_struct.cc"
    "WriteAll src/persistence/aof_rewrite.cc src/persistence/cow_snapshot.cc"
    "kHeaderSize src/store/intset.cc src/store/listpack.cc"
    "kLimitNegative src/commands/set_commands.cc src/commands/stream_commands.cc"
    "Add src/store/stream_node_test.cc src/store/stream_test.cc src/store/zset_value_test.cc"
    "Blob src/store/intset_test.cc src/store/listpack_test.cc"
    "Build src/protocol/reply_builder_test.cc src/store/intset_test.cc src/store/listpack_test.cc src/store/set_value_test.cc"
    "CaptureStdout tools/benchmark/options_test.cc tools/benchmark/report_test.cc"
    "Case src/common/glob_test.cc src/store/listpack_test.cc"
    "Contents src/store/hash_field_table_test.cc src/store/set_intset_test.cc src/store/zset_value_test.cc"
    "Elements src/store/listpack_test.cc src/store/quicklist_test.cc"
    "ExpireNow tests/unit/expire_commands_test.cc tests/unit/key_commands_test.cc"
    "FromHex src/store/intset_test.cc src/store/listpack_test.cc tests/unit/hyperloglog_test.cc"
    "FromResp tools/common/command_help_test.cc tools/common/reply_format_test.cc"
    "GetCapturedStdout tools/benchmark/options_test.cc tools/benchmark/report_test.cc"
    "Members src/store/intset_test.cc src/store/set_value_test.cc"
    "ReadFile src/persistence/cow_snapshot_test.cc tests/unit/server_commands_test.cc"
    "Table src/commands/command_table_test.cc src/store/hash_table_test.cc"
    "Text src/store/listpack_test.cc src/store/quicklist_test.cc"
    "kNotInt tests/unit/bitops_test.cc tests/unit/string_commands_test.cc"
    "kSyntax tests/unit/bitops_test.cc tests/unit/geo_commands_test.cc tests/unit/set_commands_test.cc tests/unit/sort_command_test.cc tests/unit/string_commands_test.cc"
    "kWrongType tests/unit/bitops_test.cc tests/unit/geo_commands_test.cc tests/unit/set_commands_test.cc tests/unit/sort_command_test.cc tests/unit/string_commands_test.cc tests/unit/zset_commands_test.cc"
)
# Compiled on their own: a local name that shadows one of a header's (a local Entry, while
# store/entry.h declares vireo::Entry) breaks whichever file of its group includes it later;
# malloc_count.cc defines malloc and free, which the files compiled with it must not see.
set(VIREO_UNITY_ALONE src/store/stream_node_test.cc src/store/malloc_count.cc)
set(VIREO_UNITY_GROUP_SIZE 8 CACHE STRING "Sources per unity group (-DCMAKE_UNITY_BUILD=ON)")

# vireo_unity_groups(TARGET...): in a unity build, puts each .cc of the targets into a group of
# at most VIREO_UNITY_GROUP_SIZE, the first in source order without a file it clashes with.
# The other targets (the small client tools, whose clashes are not listed) build file by file.
# Files with their own COMPILE_OPTIONS (hyperloglog.cc, geohash.cc) stay on their own.
function(vireo_unity_groups)
  if(NOT CMAKE_UNITY_BUILD)
    return()
  endif()
  foreach(line IN LISTS VIREO_UNITY_CLASHES)
    string(REPLACE " " ";" words "${line}")
    list(POP_FRONT words name)
    foreach(file IN LISTS words)
      string(MAKE_C_IDENTIFIER "${PROJECT_SOURCE_DIR}/${file}" id)
      list(APPEND tags_${id} ${name})
    endforeach()
  endforeach()
  list(TRANSFORM VIREO_UNITY_ALONE PREPEND "${PROJECT_SOURCE_DIR}/" OUTPUT_VARIABLE alone)
  get_property(all_targets DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS all_targets)
    if(NOT target IN_LIST ARGN)
      set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
    endif()
  endforeach()
  foreach(target IN LISTS ARGN)
    if(NOT TARGET ${target})
      continue()
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD_MODE GROUP)
    get_target_property(sources ${target} SOURCES)
    set(groups 0)
    foreach(src IN LISTS sources)
      get_filename_component(src ${src} ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR})
      get_source_file_property(options ${src} COMPILE_OPTIONS)
      if(NOT src MATCHES "\\.cc$" OR src IN_LIST alone OR options)
        continue()
      endif()
      string(MAKE_C_IDENTIFIER "${src}" id)
      set(group 0)
      while(group LESS groups)
        set(fits TRUE)
        list(LENGTH members_${group} size)
        if(size GREATER_EQUAL VIREO_UNITY_GROUP_SIZE)
          set(fits FALSE)
        endif()
        foreach(tag IN LISTS tags_${id})
          if(tag IN_LIST names_${group})
            set(fits FALSE)
          endif()
        endforeach()
        if(fits)
          break()
        endif()
        math(EXPR group "${group} + 1")
      endwhile()
      if(group EQUAL groups)
        math(EXPR groups "${groups} + 1")
      endif()
      list(APPEND members_${group} ${src})
      list(APPEND names_${group} ${tags_${id}})
      set_source_files_properties(${src} PROPERTIES UNITY_GROUP ${target}_${group})
    endforeach()
    foreach(group RANGE ${groups})
      unset(members_${group})
      unset(names_${group})
    endforeach()
  endforeach()
endfunction()

S 1
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 11 11|||M|||都|||REQUIRED|||-NONE-|||0

S 2
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 3
A 4 4|||M|||篇|||REQUIRED|||-NONE-|||0

S 4
A 8 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 22 24|||S|||恶 化|||REQUIRED|||-NONE-|||0

S 5
A 13 13|||M|||地 养 成|||REQUIRED|||-NONE-|||0

S 6
A 0 0|||M|||我 看 过 完 成 之 前 的 ， 今 天 期 待 看 完 成 的 样 子 。|||REQUIRED|||-NONE-|||0

S 7
A 24 25|||S|||试 一 试 到 1 2 月 3 1 日 。 如 果 有 从 来 没 有 试 过 的 决 心 的 话 ， 我 们 心 底 轻 松 的 可 以|||REQUIRED|||-NONE-|||0

S 8
A 21 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 9
A 7 7|||M|||有|||REQUIRED|||-NONE-|||0

S 10
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 11
A 10 10|||M|||是|||REQUIRED|||-NONE-|||0

S 12
A 8 8|||M|||的|||REQUIRED|||-NONE-|||0

S 13
A 3 3|||M|||那 个 东 西 还 可 以 使 用 ， 扔 掉 的 时 候 ， 我 的 心 比 较 疼 。 我 觉 得|||REQUIRED|||-NONE-|||0

S 14
A 42 42|||M|||。 几 天 后 学 生 还 没 道 歉 ， 所 以 校 长 决 定 如 果 学 生 不 能 道 歉 ， 学 生 不 得 不 停 课|||REQUIRED|||-NONE-|||0

S 15
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 16
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 7|||M|||在 这 边 写 的|||REQUIRED|||-NONE-|||0
A 12 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 17
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 18
A 4 5|||S|||旅 游 ， 朋 友 给 我 他 的 照 相 机 ， 另 一 个 接 给 我 学 习 书 。 因 为 我 去|||REQUIRED|||-NONE-|||0
A 7 7|||M|||了|||REQUIRED|||-NONE-|||0

S 19
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 20
A 1 1|||M|||还 是|||REQUIRED|||-NONE-|||0

S 21
A 8 8|||M|||到|||REQUIRED|||-NONE-|||0
A 10 11|||S|||只|||REQUIRED|||-NONE-|||0

S 22
A 13 15|||S|||都 去|||REQUIRED|||-NONE-|||0

S 23
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 24
A 0 0|||M|||他 果 然 一 瞬 间 把 它 一 口 吃 掉 ， 不 过 我 已 经 到 客 厅 走 了 ， 看 不 见 他 都 吃 完 了 。|||REQUIRED|||-NONE-|||0

S 25
A 3 4|||S|||： “|||REQUIRED|||-NONE-|||0
A 22 22|||M|||”|||REQUIRED|||-NONE-|||0

S 26
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 27
A 20 22|||S|||交 流|||REQUIRED|||-NONE-|||0

S 28
A 9 10|||S|||很|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0

S 29
A 0 0|||M|||我 看 窗 户 ， 路 看 起 来 不 通 。|||REQUIRED|||-NONE-|||0

S 30
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 18|||S|||掉|||REQUIRED|||-NONE-|||0

S 31
A 17 17|||M|||，|||REQUIRED|||-NONE-|||0

S 32
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 33
A 7 8|||S|||积 累|||REQUIRED|||-NONE-|||0
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 34
A 3 3|||M|||的 食 物 ， 对 身 体 好|||REQUIRED|||-NONE-|||0
A 6 8|||S|||自 己 开 始 喜 欢 吃 。 比 好 看 的 食 物|||REQUIRED|||-NONE-|||0

S 35
A 5 6|||S|||在|||REQUIRED|||-NONE-|||0

S 36
A 8 9|||S|||又|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0

S 37
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 17 17|||M|||是|||REQUIRED|||-NONE-|||0
A 22 22|||M|||的|||REQUIRED|||-NONE-|||0

S 38
A 0 0|||M|||因 为 没 想 到 他 背 下 来 我 弱 小 的 博 客 。|||REQUIRED|||-NONE-|||0

S 39
A 34 36|||S|||。 表 面 上 各 自 创 造 将 来 的 工 作 ， 梦 等 等 ， 可 是 这 位 教 授 以 为 将 来 是 我 们 一 人 做 的|||REQUIRED|||-NONE-|||0

S 40
A 13 14|||S|||是|||REQUIRED|||-NONE-|||0

S 41
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 16|||S|||。 今 天 很 便 宜 ， 我 去 看 了 2 0 1 2|||REQUIRED|||-NONE-|||0

S 42
A 5 5|||M|||了|||REQUIRED|||-NONE-|||0
A 8 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 43
A 36 36|||M|||。 最 近 我 脑 海 里 有 一 个 越 来 越 确 定 的 想 法 ， 就 是 现 在 的 我 是 一 个 我 所 有 过 去 的 结 果|||REQUIRED|||-NONE-|||0

S 44
A 27 27|||M|||以|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 37|||W|||” 。|||REQUIRED|||-NONE-|||0

S 45
A 7 7|||M|||能|||REQUIRED|||-NONE-|||0

S 46
A 29 30|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 33 33|||M|||一 起 吃|||REQUIRED|||-NONE-|||0
A 40 41|||S|||a|||REQUIRED|||-NONE-|||0

S 47
A 41 43|||S|||不 见|||REQUIRED|||-NONE-|||0

S 48
A 4 4|||M|||了|||REQUIRED|||-NONE-|||0

S 49
A 8 11|||S|||公 里 的 大 城 市 。 那 是 我 住 的 东 京|||REQUIRED|||-NONE-|||0

S 50
A 0 0|||M|||我 做 事 比 较 用 功 嘛 ， 不 愿 意 做 出 平 庸 的 效 果 ， 总 怕 给 朋 友 和 父 母 玩 时 他 们 会 笑 我 呀 ， 所 以 要 加 大 努 力 。|||REQUIRED|||-NONE-|||0

S 51
A 15 15|||M|||，|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 12 12|||M|||是 个|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 53
A 0 0|||M|||把 脸 向 下 的 话 ， 脸 的 肌 肉 也 往 下 去 ， 往 前 看 笑 着 等 脸 运 动 使 用 肌 肉 的 话 ， 就 老 不 起 。|||REQUIRED|||-NONE-|||0

S 54
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 55
A 17 22|||W|||常 常 对 我 们|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 57 58|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 61 61|||M|||，|||REQUIRED|||-NONE-|||0

S 56
A 0 0|||M|||对 不 起 , 我 写 开 始 的 时 候 我 打 算 告 诉 我 自 己 的 近 况 , 可 是 现 在 这 是 归 总 自 己 的 看 法 的 e n t r y !|||REQUIRED|||-NONE-|||0

S 57
A 0 0|||M|||但 是 那 件 衣 服 很 多 ， 不 能 放 入 衣 柜 里 ， 所 以 我 需 要 决 定 今 年 夏 天 穿 的 衣 服 。|||REQUIRED|||-NONE-|||0

S 58
A 12 12|||M|||该|||REQUIRED|||-NONE-|||0

S 59
A 10 11|||S|||聚|||REQUIRED|||-NONE-|||0

S 60
A 9 9|||M|||， 所 以|||REQUIRED|||-NONE-|||0

S 61
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 62
A 6 7|||S|||w|||REQUIRED|||-NONE-|||0
A 14 16|||S|||、 v|||REQUIRED|||-NONE-|||0
A 20 32|||S|||、 x p|||REQUIRED|||-NONE-|||0
A 34 35|||S|||m|||REQUIRED|||-NONE-|||0
A 37 40|||S|||o s x|||REQUIRED|||-NONE-|||0

S 63
A 11 12|||S|||， 叫|||REQUIRED|||-NONE-|||0

S 64
A 4 5|||S|||看 起 来 又 大 又 强 ， 他 却 有 最 严 重 的 责 任 ， 他 心 里 看 不 见 的 强 总 是 让 他 做 得 到 。 别 的 角 色|||REQUIRED|||-NONE-|||0

S 65
A 9 9|||M|||受 到|||REQUIRED|||-NONE-|||0
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0
A 21 26|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 32 32|||M|||参 加 年 终 联 欢 会|||REQUIRED|||-NONE-|||0

S 66
A 5 5|||M|||起|||REQUIRED|||-NONE-|||0
A 8 8|||M|||就|||REQUIRED|||-NONE-|||0

S 67
A 8 8|||M|||灾 害 很 多 ， 但 是 这 不 过 才 刚 刚 开 始 ， 但 愿 地 球 不 要 坏 了 ， 我 到 死 以 前 。 在 世 界 各 地 ， 各 种|||REQUIRED|||-NONE-|||0

S 68
A 8 10|||W|||我 都|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 69
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 70
A 6 15|||W|||买 电 视 机 的 百 分 之 多 少|||REQUIRED|||-NONE-|||0

S 71
A 2 3|||S|||着|||REQUIRED|||-NONE-|||0

S 72
A 7 13|||S|||在 其 中|||REQUIRED|||-NONE-|||0

S 73
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 74
A 0 0|||M|||所 以 用 随 便 选 择 的 工 作 时 间 的 制 度 ， 工 作 开 始 1 点 ， 结 束 7 点 的 话 ， 差 两 个 小 时 。|||REQUIRED|||-NONE-|||0

S 75
A 4 4|||M|||的|||REQUIRED|||-NONE-|||0

S 76
A 0 0|||M|||我 第 一 次 看 她 的 是 在 《 非 诚 无 扰 2 》 里 。|||REQUIRED|||-NONE-|||0

S 77
A 22 26|||W|||卖 书 的 也|||REQUIRED|||-NONE-|||0
A 30 31|||S|||地|||REQUIRED|||-NONE-|||0

S 78
A 8 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 79
A 0 0|||M|||我 觉 得 那 个 理 由 是 在 那 儿 有 急 剧 的 经 济 变 化 ， 所 以 很 多 建 筑 表 现 着 那 样 的 差 距 。|||REQUIRED|||-NONE-|||0

S 80
A 5 5|||M|||有|||REQUIRED|||-NONE-|||0
A 8 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 13 13|||M|||有|||REQUIRED|||-NONE-|||0
A 21 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 81
A 11 11|||M|||我 正 在 工 作 ， 也 满 身 大 汗 。|||REQUIRED|||-NONE-|||0

S 82
A 10 11|||S|||仿 自 己 的 前 发 ， 她 想 有 距 离 自 己 从 对 方 。 第 一 个 是 如 果 她 常 常 模 仿|||REQUIRED|||-NONE-|||0

S 83
A 6 6|||M|||那|||REQUIRED|||-NONE-|||0
A 7 7|||M|||起|||REQUIRED|||-NONE-|||0
A 8 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 84
A 12 12|||M|||像 很|||REQUIRED|||-NONE-|||0

S 85
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 4 7|||S|||上|||REQUIRED|||-NONE-|||0
A 10 10|||M|||很 长 的|||REQUIRED|||-NONE-|||0
A 11 12|||S|||，|||REQUIRED|||-NONE-|||0
A 16 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 86
A 18 18|||M|||的 事 情|||REQUIRED|||-NONE-|||0

S 87
A 3 12|||W|||一 部 关 于 现 代 生 活 的|||REQUIRED|||-NONE-|||0
A 27 27|||M|||争|||REQUIRED|||-NONE-|||0

S 88
A 13 18|||W|||他 的 眼 睛 先|||REQUIRED|||-NONE-|||0
A 36 36|||M|||有|||REQUIRED|||-NONE-|||0

S 89
A 13 13|||M|||写|||REQUIRED|||-NONE-|||0
A 15 18|||S|||好|||REQUIRED|||-NONE-|||0

S 90
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0
A 10 11|||S|||子|||REQUIRED|||-NONE-|||0

S 91
A 7 7|||M|||会|||REQUIRED|||-NONE-|||0

S 92
A 11 11|||M|||快 速 的 运 动 力 。 听 读 手|||REQUIRED|||-NONE-|||0
A 12 12|||M|||声 音 后 立 即 对 应|||REQUIRED|||-NONE-|||0

S 93
A 6 7|||S|||有|||REQUIRED|||-NONE-|||0
A 9 12|||S|||漱|||REQUIRED|||-NONE-|||0

S 94
A 25 25|||M|||会 消|||REQUIRED|||-NONE-|||0

S 95
A 6 6|||M|||使 我 不 得 不 考 虑 。 这|||REQUIRED|||-NONE-|||0

S 96
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 97
A 37 37|||M|||看|||REQUIRED|||-NONE-|||0

S 98
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 8 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 21 21|||M|||容 易 错 的 事 情 提 前 告 诉 。 切 热 情 或 亲 切 有 肯 能 消 费 者 会 遇 到|||REQUIRED|||-NONE-|||0

S 99
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0

S 100
A 6 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 21 23|||S|||消 除|||REQUIRED|||-NONE-|||0
A 25 26|||S|||里|||REQUIRED|||-NONE-|||0

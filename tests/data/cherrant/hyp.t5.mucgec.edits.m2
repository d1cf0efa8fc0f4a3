S 1
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 2
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 6 11|||W|||学 习 了 一 年|||REQUIRED|||-NONE-|||0
A 38 39|||S|||子|||REQUIRED|||-NONE-|||0

S 3
A 33 33|||M|||就|||REQUIRED|||-NONE-|||0

S 4
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 5
A 46 46|||M|||， 但|||REQUIRED|||-NONE-|||0

S 6
A 8 10|||S|||离|||REQUIRED|||-NONE-|||0
A 12 12|||M|||没 有|||REQUIRED|||-NONE-|||0

S 7
A 8 23|||W|||给 别 的 国 家 看 工 业 革 命 的 进 步 的 办 法|||REQUIRED|||-NONE-|||0

S 8
A 28 28|||M|||很|||REQUIRED|||-NONE-|||0
A 30 31|||S|||趣|||REQUIRED|||-NONE-|||0

S 9
A 0 0|||M|||因 为 流 动 歌 曲 很 容 易 学 会 ， 而 且 歌 曲 里 面 可 以 看 到 我 们 的 生 活 。|||REQUIRED|||-NONE-|||0

S 10
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 11
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 12
A 21 22|||S|||去|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 13
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 14
A 23 24|||S|||，|||REQUIRED|||-NONE-|||0
A 27 28|||S|||处|||REQUIRED|||-NONE-|||0
A 29 31|||S|||坏 处|||REQUIRED|||-NONE-|||0
A 33 34|||S|||处|||REQUIRED|||-NONE-|||0
A 40 41|||S|||访|||REQUIRED|||-NONE-|||0

S 15
A 0 7|||W|||我 的 梦 想 是 什 么|||REQUIRED|||-NONE-|||0

S 16
A 19 20|||S|||，|||REQUIRED|||-NONE-|||0
A 31 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 17
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 18
A 109 109|||M|||来|||REQUIRED|||-NONE-|||0
A 110 110|||M|||是|||REQUIRED|||-NONE-|||0
A 113 113|||M|||？|||REQUIRED|||-NONE-|||0
A 121 122|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 19
A 9 10|||S|||人|||REQUIRED|||-NONE-|||0

S 20
A 83 84|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 21
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0

S 22
A 22 24|||S|||把|||REQUIRED|||-NONE-|||0

S 23
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 24
A 18 18|||M|||发 生 了|||REQUIRED|||-NONE-|||0

S 25
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 19 19|||M|||面|||REQUIRED|||-NONE-|||0
A 24 28|||W|||装 满 热 水|||REQUIRED|||-NONE-|||0

S 26
A 17 20|||S|||阅 读|||REQUIRED|||-NONE-|||0

S 27
A 18 18|||M|||的|||REQUIRED|||-NONE-|||0

S 28
A 9 9|||M|||上|||REQUIRED|||-NONE-|||0
A 48 48|||M|||到|||REQUIRED|||-NONE-|||0

S 29
A 12 13|||S|||子|||REQUIRED|||-NONE-|||0
A 18 19|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 30
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 31
A 41 42|||S|||点|||REQUIRED|||-NONE-|||0
A 49 49|||M|||了|||REQUIRED|||-NONE-|||0

S 32
A 26 27|||S|||上|||REQUIRED|||-NONE-|||0

S 33
A 4 4|||M|||票 飞 机|||REQUIRED|||-NONE-|||0
A 5 5|||M|||。 久 后 ， 为 了 我 的 职 业 ， 我 要 常 常 旅 行 。 我 已 经 订 好|||REQUIRED|||-NONE-|||0
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0

S 34
A 19 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 35
A 31 32|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 36
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 37
A 1 1|||M|||跟|||REQUIRED|||-NONE-|||0

S 38
A 10 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 20 20|||M|||要|||REQUIRED|||-NONE-|||0

S 39
A 15 18|||W|||可 能 会|||REQUIRED|||-NONE-|||0
A 22 23|||S|||，|||REQUIRED|||-NONE-|||0

S 40
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 41
A 21 22|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 38 40|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 42
A 29 30|||S|||，|||REQUIRED|||-NONE-|||0

S 43
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 9 9|||M|||过|||REQUIRED|||-NONE-|||0
A 13 13|||M|||但|||REQUIRED|||-NONE-|||0
A 20 20|||M|||子|||REQUIRED|||-NONE-|||0

S 44
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 45
A 14 15|||S|||该|||REQUIRED|||-NONE-|||0
A 17 17|||M|||办|||REQUIRED|||-NONE-|||0
A 23 23|||M|||都 在|||REQUIRED|||-NONE-|||0

S 46
A 9 10|||S|||采 取|||REQUIRED|||-NONE-|||0

S 47
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 48
A 28 31|||W|||本 人 也|||REQUIRED|||-NONE-|||0

S 49
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 50
A 20 21|||S|||，|||REQUIRED|||-NONE-|||0

S 51
A 34 35|||S|||，|||REQUIRED|||-NONE-|||0
A 114 115|||S|||，|||REQUIRED|||-NONE-|||0
A 153 155|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 41 42|||S|||，|||REQUIRED|||-NONE-|||0

S 53
A 6 7|||S|||题|||REQUIRED|||-NONE-|||0

S 54
A 8 8|||M|||别|||REQUIRED|||-NONE-|||0
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 23 23|||M|||都|||REQUIRED|||-NONE-|||0

S 55
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 38 38|||M|||病|||REQUIRED|||-NONE-|||0
A 48 48|||M|||，|||REQUIRED|||-NONE-|||0

S 56
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 57
A 32 33|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 58
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 59
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 60
A 0 0|||M|||虽 然 树 下 不 过 天 气 已 经 3 5 度 ， 收 拾 行 李 后 我 和 我 爱 人 已 经 浑 身 出 汗 了 。|||REQUIRED|||-NONE-|||0
A 4 4|||M|||，|||REQUIRED|||-NONE-|||0

S 61
A 75 76|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 62
A 13 13|||M|||是|||REQUIRED|||-NONE-|||0

S 63
A 26 27|||S|||问 题|||REQUIRED|||-NONE-|||0

S 64
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 65
A 40 42|||S|||决|||REQUIRED|||-NONE-|||0

S 66
A 13 14|||S|||有|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 19 19|||M|||我 们 的|||REQUIRED|||-NONE-|||0

S 67
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 68
A 0 0|||M|||在 我 母 亲 的 影 响 下 我 得 到 了 良 好 的 成 长 。|||REQUIRED|||-NONE-|||0
A 8 8|||M|||，|||REQUIRED|||-NONE-|||0

S 69
A 53 54|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 72 72|||M|||要 有|||REQUIRED|||-NONE-|||0
A 73 76|||W|||的 生 活|||REQUIRED|||-NONE-|||0

S 70
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 8|||S|||是|||REQUIRED|||-NONE-|||0
A 18 18|||M|||是|||REQUIRED|||-NONE-|||0

S 71
A 7 9|||S|||天|||REQUIRED|||-NONE-|||0
A 51 52|||S|||得|||REQUIRED|||-NONE-|||0

S 72
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 73
A 13 14|||S|||处 理|||REQUIRED|||-NONE-|||0

S 74
A 15 15|||M|||人|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 75
A 7 7|||M|||的|||REQUIRED|||-NONE-|||0

S 76
A 34 40|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 77
A 19 21|||S|||是|||REQUIRED|||-NONE-|||0

S 78
A 9 9|||M|||带 来|||REQUIRED|||-NONE-|||0

S 79
A 1 5|||W|||9 0 年 前|||REQUIRED|||-NONE-|||0

S 80
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 23 24|||S|||养|||REQUIRED|||-NONE-|||0

S 81
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 82
A 0 0|||M|||喜 欢 一 个 东 西 的 话 应 该 有 程 度 。|||REQUIRED|||-NONE-|||0

S 83
A 11 12|||S|||呢|||REQUIRED|||-NONE-|||0

S 84
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 85
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 86
A 39 41|||S|||在|||REQUIRED|||-NONE-|||0

S 87
A 43 44|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 88
A 14 14|||M|||和|||REQUIRED|||-NONE-|||0
A 16 16|||M|||抽|||REQUIRED|||-NONE-|||0

S 89
A 20 20|||M|||会|||REQUIRED|||-NONE-|||0

S 90
A 11 11|||M|||的|||REQUIRED|||-NONE-|||0

S 91
A 20 20|||M|||的|||REQUIRED|||-NONE-|||0

S 92
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 25 26|||S|||的|||REQUIRED|||-NONE-|||0

S 93
A 1 1|||M|||于|||REQUIRED|||-NONE-|||0
A 96 97|||S|||希|||REQUIRED|||-NONE-|||0

S 94
A 25 26|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 27 28|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0
A 38 38|||M|||到|||REQUIRED|||-NONE-|||0

S 95
A 16 17|||S|||很|||REQUIRED|||-NONE-|||0

S 96
A 45 46|||S|||，|||REQUIRED|||-NONE-|||0

S 97
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 98
A 26 26|||M|||也|||REQUIRED|||-NONE-|||0

S 99
A 11 11|||M|||是|||REQUIRED|||-NONE-|||0
A 34 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 64 66|||W|||事 实|||REQUIRED|||-NONE-|||0
A 81 81|||M|||， 因|||REQUIRED|||-NONE-|||0

S 100
A 1 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 24 25|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 26 26|||M|||于 吸 烟|||REQUIRED|||-NONE-|||0
